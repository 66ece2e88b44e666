"""chores: 16 missions over four small worlds (bike shop, gradebook, helpdesk, train desk).

Written as a new user of `taskforce eval`, from the README (errands.py only for the file's
shape); none of these tools exist in taskforce itself. Today is Monday 2025-09-15 in every
world; the train timetable covers 2025-09-15 to 2025-09-30.
"""

from __future__ import annotations

import re

from taskforce.errors import ToolInputError
from taskforce.evals import Mission, Suite, Verdict
from taskforce.evals.mission import has_number
from taskforce.testing import call, reply
from taskforce.tools import FunctionTool

TODAY = "2025-09-15"


def _norm(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", str(text).lower())


def _answer_has(answer: str, value: float) -> bool:
    """The answer mentions `value` (a difference may be written with a minus sign)."""
    return has_number(answer, value) or has_number(answer, -value)


# --------------------------------------------------------------------------- bike shop
BIKE_KINDS = ("city", "e-bike", "mountain", "cargo")


class BikeShop:
    """A bike rental and repair shop: the fleet, open rentals, repair jobs."""

    def __init__(self) -> None:
        self.bikes = {
            "CB-1": {"kind": "city", "size": "M", "hourly_rate": 6.00, "status": "available"},
            "CB-2": {"kind": "city", "size": "L", "hourly_rate": 6.00, "status": "rented"},
            "CB-3": {"kind": "city", "size": "L", "hourly_rate": 6.50, "status": "in repair"},
            "CB-7": {"kind": "city", "size": "S", "hourly_rate": 5.50, "status": "available"},
            "EB-2": {"kind": "e-bike", "size": "M", "hourly_rate": 8.00, "status": "in repair"},
            "EB-4": {"kind": "e-bike", "size": "L", "hourly_rate": 9.50, "status": "available"},
            "EB-5": {"kind": "e-bike", "size": "M", "hourly_rate": 11.00, "status": "available"},
            "EB-6": {"kind": "e-bike", "size": "S", "hourly_rate": 10.00, "status": "rented"},
            "MB-1": {"kind": "mountain", "size": "L", "hourly_rate": 7.50, "status": "available"},
            "MB-2": {"kind": "mountain", "size": "M", "hourly_rate": 7.50, "status": "available"},
            "KB-1": {"kind": "cargo", "size": "-", "hourly_rate": 12.00, "status": "available"},
            "KB-2": {"kind": "cargo", "size": "-", "hourly_rate": 12.00, "status": "available"},
            "KB-3": {"kind": "cargo", "size": "-", "hourly_rate": 12.50, "status": "available"},
        }
        self.rentals = {
            "R-101": {"bike_id": "CB-2", "customer": "Jonas Weber", "hours": 2, "open": True},
            "R-102": {"bike_id": "EB-6", "customer": "Mia Costa", "hours": 5, "open": True},
        }
        self.repairs: list[dict] = [{"bike_id": "CB-3", "problem": "bent wheel"}]
        self.repairs.append({"bike_id": "EB-2", "problem": "battery fault"})
        self._next = 103

    def _bike(self, bike_id: str) -> tuple[str, dict]:
        key = str(bike_id).strip().upper()
        if key not in self.bikes:
            raise ToolInputError(f"no bike {bike_id!r}; use find_bikes to see the bike_ids")
        return key, self.bikes[key]

    def find_bikes(self, kind: str = "", size: str = "") -> list[dict]:
        """List the shop's bikes (optionally of one kind: city, e-bike, mountain, cargo; and size S/M/L) with bike_id, hourly_rate and status."""  # noqa: E501
        k = _norm(kind)
        if k and k not in {_norm(x) for x in BIKE_KINDS}:
            raise ToolInputError(f"unknown kind {kind!r}; kinds are {', '.join(BIKE_KINDS)}")
        s = str(size).strip().upper()
        if s and s not in ("S", "M", "L"):
            raise ToolInputError(f"unknown size {size!r}; sizes are S, M, L")
        return [
            {"bike_id": b, **info}
            for b, info in self.bikes.items()
            if (not k or _norm(info["kind"]) == k) and (not s or info["size"] == s)
        ]

    def rent_bike(self, bike_id: str, customer: str, hours: int) -> str:
        """Rent an available bike to a customer for a number of hours; returns the rental id and the price."""  # noqa: E501
        key, bike = self._bike(bike_id)
        if bike["status"] != "available":
            raise ToolInputError(f"{key} is {bike['status']}, not available; see find_bikes")
        if not 1 <= hours <= 12:
            raise ToolInputError("hours must be between 1 and 12")
        if not str(customer).strip():
            raise ToolInputError("customer name is required")
        rental_id = f"R-{self._next}"
        self._next += 1
        self.rentals[rental_id] = {
            "bike_id": key,
            "customer": customer.strip(),
            "hours": hours,
            "open": True,
        }
        bike["status"] = "rented"
        price = bike["hourly_rate"] * hours
        return f"rental {rental_id}: {key} to {customer.strip()} for {hours} h, price {price:.2f}"

    def list_rentals(self, customer: str = "") -> list[dict]:
        """List the open rentals (optionally of one customer) with rental_id, bike_id and hours."""
        return [
            {"rental_id": r, **info}
            for r, info in self.rentals.items()
            if info["open"] and (not customer or _norm(customer) in _norm(info["customer"]))
        ]

    def return_bike(self, rental_id: str) -> str:
        """Close an open rental: the bike is back in the shop and available again."""
        key = str(rental_id).strip().upper()
        rental = self.rentals.get(key)
        if rental is None or not rental["open"]:
            raise ToolInputError(f"no open rental {rental_id!r}; see list_rentals")
        rental["open"] = False
        self.bikes[rental["bike_id"]]["status"] = "available"
        return f"{rental['bike_id']} returned; rental {key} closed"

    def open_repair(self, bike_id: str, problem: str) -> str:
        """Book a bike in for repair with a short description of the problem; it is not rentable until fixed."""  # noqa: E501
        key, bike = self._bike(bike_id)
        if bike["status"] == "rented":
            raise ToolInputError(f"{key} is out on rental; return it before booking a repair")
        if not str(problem).strip():
            raise ToolInputError("describe the problem")
        bike["status"] = "in repair"
        self.repairs.append({"bike_id": key, "problem": problem.strip()})
        return f"{key} booked in for repair: {problem.strip()}"

    def tools(self) -> list[FunctionTool]:
        """The tools the agent gets, acting on this world."""
        return [
            FunctionTool(self.find_bikes, read_only=True),
            FunctionTool(self.rent_bike),
            FunctionTool(self.list_rentals, read_only=True),
            FunctionTool(self.return_bike),
            FunctionTool(self.open_repair),
        ]


def _new_rentals(w: BikeShop) -> list[dict]:
    """Rentals made during the run and still open (one returned again is undone)."""
    return [info for r, info in w.rentals.items() if r not in ("R-101", "R-102") and info["open"]]


def _describe(rentals: list[dict]) -> str:
    return ", ".join(f"{r['bike_id']} to {r['customer']} {r['hours']}h" for r in rentals) or "none"


def check_cheapest_ebike(w: BikeShop, answer: str) -> Verdict:
    """One new rental: EB-4 (cheapest free e-bike) to Nora Quinn for 3h; answer 28.50."""
    new = _new_rentals(w)
    if len(new) != 1:
        return Verdict(False, f"expected one new rental, got {len(new)}: {_describe(new)}")
    r = new[0]
    if _norm(r["customer"]) != "noraquinn" or r["bike_id"] != "EB-4" or r["hours"] != 3:
        return Verdict(False, f"rental is {_describe(new)}, not EB-4 to Nora Quinn for 3h")
    if not has_number(answer, 28.5):
        return Verdict(False, "the answer does not give the price 28.50")
    return Verdict(True, "EB-4 rented to Nora Quinn for 3h, price 28.50")


def check_size_l(w: BikeShop, answer: str) -> Verdict:
    """No L city bike is free, so one rental: MB-1 to Priya Nair for 4h."""
    new = _new_rentals(w)
    if len(new) != 1:
        return Verdict(False, f"expected one new rental, got {len(new)}: {_describe(new)}")
    r = new[0]
    if _norm(r["customer"]) != "priyanair" or r["bike_id"] != "MB-1" or r["hours"] != 4:
        return Verdict(False, f"rental is {_describe(new)}, not MB-1 to Priya Nair for 4h")
    return Verdict(True, "no size L city bike free; MB-1 rented to Priya Nair for 4h")


def check_cargo_brakes(w: BikeShop, answer: str) -> Verdict:
    """One brake-check repair for each of KB-1, KB-2, KB-3 and nothing else."""
    new = w.repairs[2:]
    booked = sorted(r["bike_id"] for r in new)
    if booked != ["KB-1", "KB-2", "KB-3"]:
        return Verdict(False, f"repairs booked for {booked}, not KB-1, KB-2, KB-3 once each")
    if not all("brake" in r["problem"].lower() for r in new):
        return Verdict(False, f"problems: {[r['problem'] for r in new]} (not a brake check)")
    if _new_rentals(w):
        return Verdict(False, f"unexpected rentals: {_describe(_new_rentals(w))}")
    return Verdict(True, "KB-1, KB-2, KB-3 booked in for a brake check")


def check_rent_cb7(w: BikeShop, answer: str) -> Verdict:
    """One new rental: CB-7 to Leo Park for 2h."""
    new = _new_rentals(w)
    ok = len(new) == 1 and new[0]["bike_id"] == "CB-7" and _norm(new[0]["customer"]) == "leopark"
    ok = ok and new[0]["hours"] == 2
    return Verdict(ok, f"new rentals: {_describe(new)}")


# --------------------------------------------------------------------------- gradebook
class Gradebook:
    """A school gradebook: classes, students, assignments, marks (0-100), support flags."""

    def __init__(self) -> None:
        self.students = {
            "S-701": {"name": "Ana Petrov", "class": "7B"},
            "S-702": {"name": "Ben Okoye", "class": "7B"},
            "S-703": {"name": "Chloe Brandt", "class": "7B"},
            "S-704": {"name": "Dmitri Sokolov", "class": "7B"},
            "S-705": {"name": "Ella Moreau", "class": "7B"},
            "S-731": {"name": "Ana Silva", "class": "7C"},
            "S-732": {"name": "Tom Reid", "class": "7C"},
            "S-733": {"name": "Ben Okafor", "class": "7C"},
        }
        self.assignments = {
            "7B": ["Fractions quiz", "Volcano project", "Map test", "Poetry essay"],
            "7C": ["Fractions quiz", "Poetry essay"],
        }
        # (student_id, assignment) -> mark
        self.marks: dict[tuple[str, str], int] = {}
        for sid, row in {
            "S-701": (84, 90, 77),
            "S-702": (72, 88, 65),
            "S-703": (52, 71, 60),
            "S-704": (90, 95, 88),
            "S-705": (66, 63, 75),
        }.items():
            for assignment, mark in zip(self.assignments["7B"][:3], row, strict=True):
                self.marks[(sid, assignment)] = mark
        self.marks[("S-731", "Fractions quiz")] = 91
        self.marks[("S-732", "Fractions quiz")] = 58
        self.marks[("S-733", "Fractions quiz")] = 80
        self.initial_marks = dict(self.marks)
        self.flags: list[tuple[str, str]] = []

    def _class(self, class_name: str) -> str:
        key = str(class_name).strip().upper().removeprefix("CLASS").strip()
        if key not in self.assignments:
            raise ToolInputError(f"no class {class_name!r}; classes are 7B and 7C")
        return key

    def _student(self, student_id: str) -> str:
        key = str(student_id).strip().upper()
        if key not in self.students:
            raise ToolInputError(f"no student {student_id!r}; use list_students for the ids")
        return key

    def list_students(self, class_name: str) -> list[dict]:
        """List the students of a class (e.g. 7B) with their student_id and name."""
        c = self._class(class_name)
        return [
            {"student_id": s, "name": info["name"]}
            for s, info in self.students.items()
            if info["class"] == c
        ]

    def list_assignments(self, class_name: str) -> list[dict]:
        """List a class's assignments and how many students have a mark for each."""
        c = self._class(class_name)
        members = {s for s, info in self.students.items() if info["class"] == c}
        return [
            {
                "assignment": a,
                "marked": sum(1 for (s, aa) in self.marks if aa == a and s in members),
            }
            for a in self.assignments[c]
        ]

    def get_marks(self, student_id: str) -> list[dict]:
        """A student's marks (0-100) so far, one per marked assignment."""
        s = self._student(student_id)
        return [{"assignment": a, "mark": m} for (ss, a), m in self.marks.items() if ss == s]

    def record_mark(self, student_id: str, assignment: str, mark: int) -> str:
        """Record (or correct) a student's mark, 0-100, for one of their class's assignments."""
        s = self._student(student_id)
        c = self.students[s]["class"]
        names = {_norm(a): a for a in self.assignments[c]}
        if _norm(assignment) not in names:
            raise ToolInputError(
                f"class {c} has no assignment {assignment!r}; it has {', '.join(names.values())}"
            )
        if not 0 <= mark <= 100:
            raise ToolInputError("mark must be between 0 and 100")
        a = names[_norm(assignment)]
        self.marks[(s, a)] = mark
        return f"{self.students[s]['name']}: {a} = {mark}"

    def flag_for_support(self, student_id: str, reason: str) -> str:
        """Flag a student for extra support, with a short reason (the head of year follows up)."""
        s = self._student(student_id)
        self.flags.append((s, str(reason)))
        return f"{self.students[s]['name']} flagged for extra support"

    def tools(self) -> list[FunctionTool]:
        """The tools the agent gets, acting on this world."""
        return [
            FunctionTool(self.list_students, read_only=True),
            FunctionTool(self.list_assignments, read_only=True),
            FunctionTool(self.get_marks, read_only=True),
            FunctionTool(self.record_mark),
            FunctionTool(self.flag_for_support),
        ]


def _mark_changes(w: Gradebook) -> dict[tuple[str, str], int]:
    return {k: v for k, v in w.marks.items() if w.initial_marks.get(k) != v}


def check_class_size(w: Gradebook, answer: str) -> Verdict:
    """Answer 5; nothing changed."""
    if _mark_changes(w) or w.flags:
        return Verdict(False, "marks or flags changed for a question")
    return Verdict(has_number(answer, 5), f"7B has 5 students; answer: {answer[:120]!r}")


POETRY = {"S-701": 91, "S-702": 78, "S-703": 85, "S-704": 88}


def check_poetry(w: Gradebook, answer: str) -> Verdict:
    """Poetry essay marks for the four 7B students (not Ana Silva or Ben Okafor of 7C)."""
    for sid, want in POETRY.items():
        got = w.marks.get((sid, "Poetry essay"))
        if got != want:
            name = w.students[sid]["name"]
            shown = "missing" if got is None else got
            return Verdict(False, f"Poetry essay for {name} is {shown}, not {want}")
    extra = {
        k: v for k, v in _mark_changes(w).items() if k not in {(s, "Poetry essay") for s in POETRY}
    }
    if extra:
        return Verdict(False, f"marks that should not change: {extra}")
    return Verdict(True, "four Poetry essay marks recorded in 7B")


def check_ben_average(w: Gradebook, answer: str) -> Verdict:
    """Answer 75; nothing changed."""
    if _mark_changes(w) or w.flags:
        return Verdict(False, "marks or flags changed for a question")
    return Verdict(has_number(answer, 75), f"Ben's average is 75; answer: {answer[:120]!r}")


def check_support_flags(w: Gradebook, answer: str) -> Verdict:
    """Chloe (61) flagged once, Ella (68) not; no marks changed."""
    flagged = [s for s, _ in w.flags]
    if "S-705" in flagged:
        return Verdict(False, "Ella (average 68) was flagged")
    if flagged != ["S-703"]:
        names = [w.students[s]["name"] for s in flagged]
        return Verdict(False, f"flagged {names}, expected Chloe Brandt once (average 61)")
    if _mark_changes(w):
        return Verdict(False, f"marks changed: {_mark_changes(w)}")
    return Verdict(True, "Chloe (61) flagged, Ella (68) not")


# --------------------------------------------------------------------------- IT helpdesk
PRIORITIES = ("low", "normal", "high", "urgent")


class Helpdesk:
    """An IT helpdesk queue: tickets, technicians and their teams, comments."""

    def __init__(self) -> None:
        def t(title: str, reporter: str, assignee: str = "", status: str = "open",
              priority: str = "normal") -> dict:  # fmt: skip
            return {"title": title, "reporter": reporter, "assignee": assignee,
                    "status": status, "priority": priority, "resolution": ""}  # fmt: skip

        self.tickets = {
            "T-1031": t("Password reset for payroll system", "Aisha Khan"),
            "T-1033": t("Printer on 3rd floor keeps jamming", "Marta Silva"),
            "T-1034": t("Password reset - email account", "Ben Cole"),
            "T-1036": t("VPN drops every hour", "Omar Haddad", "Raj Patel"),
            "T-1037": t(
                "Password reset after lockout", "Ines Duarte", "Kenji Mori", priority="high"
            ),
            "T-1038": t("Password reset request", "Paul Ek", "Kenji Mori", status="closed"),
            "T-1039": t("Wi-Fi slow in meeting room B", "Marta Silva", "Lena Hart"),
            "T-1040": t("Laptop fan very loud", "Tom Gray", "Sofia Ruiz"),
            "T-1041": t("Switch in server room beeping", "Omar Haddad", "Lena Hart"),
            "T-1042": t("New monitor for reception", "Julia Berg", priority="low"),
            "T-1044": t("Docking station not charging", "Ahmed Rahimi", "Dev Malik"),
            "T-1045": t("Projector bulb out in room 4", "Julia Berg", "Dev Malik"),
            "T-1046": t("Install a password manager on my laptop", "Ben Cole"),
        }
        self.technicians = {
            "Dev Malik": "hardware",
            "Lena Hart": "network",
            "Raj Patel": "network",
            "Sofia Ruiz": "hardware",
            "Kenji Mori": "accounts",
        }
        self.initial = {k: dict(v) for k, v in self.tickets.items()}
        self.comments: list[tuple[str, str]] = []

    def _ticket(self, ticket_id: str) -> tuple[str, dict]:
        key = str(ticket_id).strip().upper()
        if key not in self.tickets:
            raise ToolInputError(f"no ticket {ticket_id!r}; use search_tickets to find it")
        return key, self.tickets[key]

    def search_tickets(self, text: str = "", reporter: str = "", status: str = "") -> list[dict]:
        """Find tickets by words of the title, the reporter's name and/or status (open, closed); returns ticket_id, title, reporter, assignee, status, priority."""  # noqa: E501
        st = str(status).strip().lower()
        if st and st not in ("open", "closed"):
            raise ToolInputError("status is 'open' or 'closed' (or empty for both)")
        words = [w for w in re.split(r"\W+", str(text).lower()) if w]
        return [
            {
                "ticket_id": k,
                **{f: v[f] for f in ("title", "reporter", "assignee", "status", "priority")},
            }
            for k, v in self.tickets.items()
            if all(w in v["title"].lower() for w in words)
            and (not reporter or _norm(reporter) in _norm(v["reporter"]))
            and (not st or v["status"] == st)
        ]

    def list_technicians(self, team: str = "") -> list[dict]:
        """List the technicians (optionally of one team: hardware, network, accounts) with how many open tickets each has."""  # noqa: E501
        tm = str(team).strip().lower()
        if tm and tm not in set(self.technicians.values()):
            raise ToolInputError(f"no team {team!r}; teams are hardware, network, accounts")
        return [
            {
                "name": name,
                "team": tteam,
                "open_tickets": sum(
                    1
                    for v in self.tickets.values()
                    if v["assignee"] == name and v["status"] == "open"
                ),
            }
            for name, tteam in self.technicians.items()
            if not tm or tteam == tm
        ]

    def assign_ticket(self, ticket_id: str, technician: str) -> str:
        """Assign a ticket to a technician (their full name)."""
        key, ticket = self._ticket(ticket_id)
        names = {_norm(n): n for n in self.technicians}
        if _norm(technician) not in names:
            raise ToolInputError(
                f"no technician {technician!r}; technicians are {', '.join(self.technicians)}"
            )
        ticket["assignee"] = names[_norm(technician)]
        return f"{key} assigned to {ticket['assignee']}"

    def set_priority(self, ticket_id: str, priority: str) -> str:
        """Set a ticket's priority: low, normal, high or urgent."""
        key, ticket = self._ticket(ticket_id)
        p = str(priority).strip().lower()
        if p not in PRIORITIES:
            raise ToolInputError(f"priority must be one of {', '.join(PRIORITIES)}")
        ticket["priority"] = p
        return f"{key} priority is now {p}"

    def add_comment(self, ticket_id: str, text: str) -> str:
        """Add a comment to a ticket's history (the assignee is notified)."""
        key, _ = self._ticket(ticket_id)
        if not str(text).strip():
            raise ToolInputError("the comment is empty")
        self.comments.append((key, text.strip()))
        return f"comment added to {key}"

    def close_ticket(self, ticket_id: str, resolution: str) -> str:
        """Close an open ticket with a short resolution note."""
        key, ticket = self._ticket(ticket_id)
        if ticket["status"] == "closed":
            raise ToolInputError(f"{key} is already closed")
        ticket["status"] = "closed"
        ticket["resolution"] = str(resolution).strip()
        return f"{key} closed"

    def tools(self) -> list[FunctionTool]:
        """The tools the agent gets, acting on this world."""
        return [
            FunctionTool(self.search_tickets, read_only=True),
            FunctionTool(self.list_technicians, read_only=True),
            FunctionTool(self.assign_ticket),
            FunctionTool(self.set_priority),
            FunctionTool(self.add_comment),
            FunctionTool(self.close_ticket),
        ]


def _changed(w: Helpdesk) -> dict[str, dict]:
    """For each changed ticket, the fields that changed (new values)."""
    out = {}
    for k, v in w.tickets.items():
        diff = {f: x for f, x in v.items() if w.initial[k][f] != x}
        if diff:
            out[k] = diff
    return out


def check_printer_assign(w: Helpdesk, answer: str) -> Verdict:
    """T-1033 assigned to Sofia Ruiz (1 open, Dev Malik has 2); nothing else."""
    changed = _changed(w)
    who = w.tickets["T-1033"]["assignee"]
    if who != "Sofia Ruiz":
        return Verdict(False, f"printer ticket assigned to {who or 'nobody'}, not Sofia Ruiz")
    if set(changed) != {"T-1033"} or set(changed["T-1033"]) != {"assignee"}:
        return Verdict(False, f"other changes: {changed}")
    return Verdict(True, "T-1033 assigned to Sofia Ruiz (1 open ticket)")


RESETS = ("T-1031", "T-1034", "T-1037")


def check_close_resets(w: Helpdesk, answer: str) -> Verdict:
    """T-1031, T-1034, T-1037 closed; not T-1046 (password manager) or others."""
    still = [k for k in RESETS if w.tickets[k]["status"] != "closed"]
    if still:
        return Verdict(False, f"password-reset tickets still open: {still}")
    changed = _changed(w)
    wrong = sorted(set(changed) - set(RESETS))
    if wrong:
        return Verdict(False, f"tickets that should not change: {wrong} ({changed})")
    return Verdict(True, "T-1031, T-1034, T-1037 closed")


def check_vpn_chase(w: Helpdesk, answer: str) -> Verdict:
    """T-1036 is Raj's: one comment on it, no assignment or priority change."""
    changed = _changed(w)
    if changed:
        return Verdict(False, f"ticket fields changed (already assigned to Raj): {changed}")
    on = [k for k, _ in w.comments]
    if on != ["T-1036"]:
        return Verdict(False, f"comments on {on}, expected one on T-1036")
    return Verdict(True, "comment added to T-1036, assignment and priority untouched")


def check_raise_1042(w: Helpdesk, answer: str) -> Verdict:
    """T-1042 high priority; nothing else."""
    changed = _changed(w)
    ok = changed == {"T-1042": {"priority": "high"}} and not w.comments
    return Verdict(ok, f"changes: {changed}, comments: {w.comments}")


# --------------------------------------------------------------------------- train desk
STATIONS = ("Leeds", "York", "Manchester", "Hull")


class TrainDesk:
    """A train-ticket booking desk: a timetable with fares and free seats, bookings."""

    def __init__(self) -> None:
        def tr(origin: str, dest: str, date: str, departs: str, arrives: str, fare: float,
               free: int) -> dict:  # fmt: skip
            return {"origin": origin, "destination": dest, "date": date, "departs": departs,
                    "arrives": arrives, "fare": fare, "seats_free": free}  # fmt: skip

        self.trains = {
            "TR-401": tr("Leeds", "York", "2025-09-18", "07:15", "07:42", 9.80, 12),
            "TR-403": tr("Leeds", "York", "2025-09-18", "08:15", "08:42", 12.40, 0),
            "TR-405": tr("Leeds", "York", "2025-09-18", "09:15", "09:42", 11.20, 20),
            "TR-407": tr("Leeds", "York", "2025-09-18", "10:15", "10:42", 9.80, 30),
            "TR-409": tr("Leeds", "York", "2025-09-19", "08:15", "08:42", 12.40, 25),
            "TR-611": tr("Leeds", "Manchester", "2025-09-20", "08:05", "09:02", 15.50, 40),
            "TR-613": tr("Leeds", "Manchester", "2025-09-20", "12:05", "13:02", 14.00, 40),
            "TR-616": tr("Manchester", "Leeds", "2025-09-20", "18:05", "19:02", 14.00, 35),
            "TR-720": tr("Leeds", "Hull", "2025-09-22", "10:40", "11:40", 18.90, 15),
            "TR-722": tr("Hull", "Leeds", "2025-09-21", "16:10", "17:10", 18.90, 15),
        }
        self.bookings = {
            "BK-3301": {
                "passenger": "Tom Becker",
                "train_id": "TR-611",
                "seats": 1,
                "total": 15.50,
            },
            "BK-3302": {
                "passenger": "Tom Becker",
                "train_id": "TR-616",
                "seats": 1,
                "total": 14.00,
            },
            "BK-3303": {
                "passenger": "Tom Becker",
                "train_id": "TR-720",
                "seats": 1,
                "total": 18.90,
            },
            "BK-3304": {"passenger": "Sara Lind", "train_id": "TR-405", "seats": 2, "total": 22.40},
            "BK-3308": {"passenger": "Sara Lind", "train_id": "TR-722", "seats": 2, "total": 37.80},
            "BK-3310": {"passenger": "Ruth Ames", "train_id": "TR-613", "seats": 3, "total": 42.00},
            "BK-3311": {"passenger": "Ruth Ames", "train_id": "TR-616", "seats": 3, "total": 42.00},
        }
        for b in self.bookings.values():
            b["status"] = "booked"
        self.initial = {k: dict(v) for k, v in self.bookings.items()}
        self.refunds: list[tuple[str, float]] = []
        self._next = 3320

    def _train(self, train_id: str) -> tuple[str, dict]:
        key = str(train_id).strip().upper()
        if key not in self.trains:
            raise ToolInputError(f"no train {train_id!r}; use find_trains for the train_ids")
        return key, self.trains[key]

    def _booking(self, booking_id: str) -> tuple[str, dict]:
        key = str(booking_id).strip().upper()
        b = self.bookings.get(key)
        if b is None:
            raise ToolInputError(f"no booking {booking_id!r}; list_bookings finds a passenger's")
        if b["status"] != "booked":
            raise ToolInputError(f"booking {key} is already cancelled")
        return key, b

    def find_trains(self, origin: str, destination: str, date: str) -> list[dict]:
        """List the trains from origin to destination on a date (YYYY-MM-DD, timetable 2025-09-15 to 2025-09-30) with train_id, departs, arrives, fare per seat and seats_free."""  # noqa: E501
        stations = {_norm(s): s for s in STATIONS}
        for s in (origin, destination):
            if _norm(s) not in stations:
                raise ToolInputError(f"unknown station {s!r}; stations: {', '.join(STATIONS)}")
        if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", str(date).strip()):
            raise ToolInputError("date must be YYYY-MM-DD, e.g. 2025-09-18")
        d = str(date).strip()
        if not "2025-09-15" <= d <= "2025-09-30":
            raise ToolInputError(f"no timetable for {d}; it covers 2025-09-15 to 2025-09-30")
        o, de = stations[_norm(origin)], stations[_norm(destination)]
        return [
            {"train_id": k, **{f: v[f] for f in ("departs", "arrives", "fare", "seats_free")}}
            for k, v in self.trains.items()
            if v["origin"] == o and v["destination"] == de and v["date"] == d
        ]

    def book_seats(self, train_id: str, passenger: str, seats: int) -> str:
        """Book seats on a train for a passenger; returns the booking id and the total fare."""
        key, train = self._train(train_id)
        if seats < 1:
            raise ToolInputError("book at least 1 seat")
        if train["seats_free"] == 0:
            raise ToolInputError(f"{key} is full (0 seats free)")
        if seats > train["seats_free"]:
            raise ToolInputError(f"{key} has only {train['seats_free']} seats free")
        if not str(passenger).strip():
            raise ToolInputError("passenger name is required")
        train["seats_free"] -= seats
        booking_id = f"BK-{self._next}"
        self._next += 1
        total = round(train["fare"] * seats, 2)
        self.bookings[booking_id] = {
            "passenger": passenger.strip(),
            "train_id": key,
            "seats": seats,
            "total": total,
            "status": "booked",
        }
        who = passenger.strip()
        return f"booking {booking_id}: {seats} seat(s) on {key} for {who}, total {total:.2f}"

    def list_bookings(self, passenger: str) -> list[dict]:
        """A passenger's bookings with booking_id, train, route, date, departure, seats, total paid and status."""  # noqa: E501
        out = []
        for k, b in self.bookings.items():
            if _norm(passenger) and _norm(passenger) in _norm(b["passenger"]):
                t = self.trains[b["train_id"]]
                out.append({
                    "booking_id": k, "train_id": b["train_id"], "origin": t["origin"],
                    "destination": t["destination"], "date": t["date"], "departs": t["departs"],
                    "seats": b["seats"], "total": b["total"], "status": b["status"],
                })  # fmt: skip
        return out

    def cancel_booking(self, booking_id: str) -> str:
        """Cancel a booking: the seats are released and the total is refunded."""
        key, b = self._booking(booking_id)
        b["status"] = "cancelled"
        self.trains[b["train_id"]]["seats_free"] += b["seats"]
        self.refunds.append((key, b["total"]))
        return f"booking {key} cancelled"

    def change_booking(self, booking_id: str, new_train_id: str) -> str:
        """Move a booking to another train on the same route and day; returns the new total."""
        key, b = self._booking(booking_id)
        new_key, new = self._train(new_train_id)
        old = self.trains[b["train_id"]]
        if (new["origin"], new["destination"], new["date"]) != (
            old["origin"], old["destination"], old["date"]
        ):  # fmt: skip
            raise ToolInputError("a booking can only move to a train on the same route and day")
        if new_key == b["train_id"]:
            raise ToolInputError(f"booking {key} is already on {new_key}")
        if b["seats"] > new["seats_free"]:
            raise ToolInputError(f"{new_key} has only {new['seats_free']} seats free")
        old["seats_free"] += b["seats"]
        new["seats_free"] -= b["seats"]
        b["train_id"] = new_key
        b["total"] = round(new["fare"] * b["seats"], 2)
        return f"booking {key} moved to {new_key} ({new['departs']}); new total {b['total']:.2f}"

    def tools(self) -> list[FunctionTool]:
        """The tools the agent gets, acting on this world."""
        return [
            FunctionTool(self.find_trains, read_only=True),
            FunctionTool(self.book_seats),
            FunctionTool(self.list_bookings, read_only=True),
            FunctionTool(self.cancel_booking),
            FunctionTool(self.change_booking),
        ]


def _booking_changes(w: TrainDesk) -> tuple[dict[str, dict], dict[str, dict]]:
    """(changed existing bookings, new bookings still booked: one cancelled again is undone)."""
    changed = {k: v for k, v in w.bookings.items() if k in w.initial and w.initial[k] != v}
    new = {k: v for k, v in w.bookings.items() if k not in w.initial and v["status"] == "booked"}
    return changed, new


def check_full_fallback(w: TrainDesk, answer: str) -> Verdict:
    """08:15 is full: one booking, 2 seats on TR-405 (09:15) for Elena Fischer."""
    changed, new = _booking_changes(w)
    if changed:
        return Verdict(False, f"existing bookings changed: {sorted(changed)}")
    if len(new) != 1:
        got = [(b["passenger"], b["train_id"], b["seats"]) for b in new.values()]
        return Verdict(False, f"expected one new booking, got {got}")
    b = next(iter(new.values()))
    if _norm(b["passenger"]) != "elenafischer" or b["train_id"] != "TR-405" or b["seats"] != 2:
        got = (b["passenger"], b["train_id"], b["seats"])
        return Verdict(False, f"booked {got}, not 2 seats on TR-405 (09:15) for Elena Fischer")
    return Verdict(True, "08:15 full; 2 seats on the 09:15 for Elena Fischer")


def check_cancel_day(w: TrainDesk, answer: str) -> Verdict:
    """BK-3301 and BK-3302 cancelled (not BK-3303 on the 22nd); answer 29.50."""
    changed, new = _booking_changes(w)
    if new:
        return Verdict(False, f"new bookings made: {sorted(new)}")
    gone = sorted(k for k, v in changed.items() if v["status"] == "cancelled")
    if gone != ["BK-3301", "BK-3302"]:
        return Verdict(False, f"cancelled {gone}, not BK-3301 and BK-3302 (Tom's 20 September)")
    if set(changed) != {"BK-3301", "BK-3302"}:
        return Verdict(False, f"other bookings changed: {sorted(changed)}")
    if not has_number(answer, 29.5):
        return Verdict(False, "the answer does not give the total refund 29.50")
    return Verdict(True, "BK-3301 and BK-3302 cancelled, refund 29.50")


def check_move_later(w: TrainDesk, answer: str) -> Verdict:
    """BK-3304 moved to TR-407 (10:15), no new booking; answer 2.80."""
    changed, new = _booking_changes(w)
    if new:
        return Verdict(False, f"new bookings made instead of a change: {sorted(new)}")
    b = w.bookings["BK-3304"]
    if b["status"] != "booked" or b["train_id"] != "TR-407":
        return Verdict(False, f"BK-3304 is {b['status']} on {b['train_id']}, not moved to TR-407")
    if set(changed) != {"BK-3304"}:
        return Verdict(False, f"other bookings changed: {sorted(set(changed) - {'BK-3304'})}")
    if not _answer_has(answer, 2.8):
        return Verdict(False, "the answer does not give the fare difference 2.80 (22.40 -> 19.60)")
    return Verdict(True, "BK-3304 moved to the 10:15, 2.80 cheaper")


def check_cancel_ref(w: TrainDesk, answer: str) -> Verdict:
    """BK-3310 cancelled; nothing else."""
    changed, new = _booking_changes(w)
    ok = set(changed) == {"BK-3310"} and changed["BK-3310"]["status"] == "cancelled" and not new
    return Verdict(ok, f"changed {sorted(changed)}, new {sorted(new)}")


# --------------------------------------------------------------------------- missions
MISSIONS = [
    # bike shop
    Mission(
        "bike-cheapest-ebike",
        "Rent Nora Quinn the cheapest e-bike we have available right now, for 3 hours, "
        "and tell me what she'll pay.",
        BikeShop,
        check_cheapest_ebike,
        reference=(
            call("find_bikes", kind="e-bike"),
            call("rent_bike", bike_id="EB-4", customer="Nora Quinn", hours=3),
            reply("Nora Quinn has EB-4 for 3 hours; she'll pay 28.50."),
        ),
        tags=("chain", "arithmetic"),
    ),
    Mission(
        "bike-size-l-fallback",
        "Priya Nair wants a size L city bike for 4 hours. If no size L city bike is free, "
        "rent her a size L mountain bike for the same time instead.",
        BikeShop,
        check_size_l,
        reference=(
            call("find_bikes", kind="city", size="L"),
            call("find_bikes", kind="mountain", size="L"),
            call("rent_bike", bike_id="MB-1", customer="Priya Nair", hours=4),
            reply("No size L city bike is free, so Priya has mountain bike MB-1 for 4 hours."),
        ),
        tags=("conditional", "chain"),
    ),
    Mission(
        "bike-cargo-brakes",
        "Book every one of our cargo bikes in for repair with the problem 'brake check'.",
        BikeShop,
        check_cargo_brakes,
        reference=(
            call("find_bikes", kind="cargo"),
            call("open_repair", bike_id="KB-1", problem="brake check"),
            call("open_repair", bike_id="KB-2", problem="brake check"),
            call("open_repair", bike_id="KB-3", problem="brake check"),
            reply("KB-1, KB-2 and KB-3 are booked in for a brake check."),
        ),
        tags=("fan-out",),
    ),
    Mission(
        "bike-rent-cb7",
        "Rent bike CB-7 to Leo Park for 2 hours.",
        BikeShop,
        check_rent_cb7,
        reference=(
            call("rent_bike", bike_id="CB-7", customer="Leo Park", hours=2),
            reply("CB-7 is rented to Leo Park for 2 hours (11.00)."),
        ),
        tags=("single",),
    ),
    # gradebook
    Mission(
        "grade-class-size",
        "How many students are in class 7B?",
        Gradebook,
        check_class_size,
        reference=(
            call("list_students", class_name="7B"),
            reply("Class 7B has 5 students."),
        ),
        tags=("single",),
    ),
    Mission(
        "grade-poetry-marks",
        "Enter the Poetry essay marks for class 7B: Ana 91, Ben 78, Chloe 85 and Dmitri 88.",
        Gradebook,
        check_poetry,
        reference=(
            call("list_students", class_name="7B"),
            call("record_mark", student_id="S-701", assignment="Poetry essay", mark=91),
            call("record_mark", student_id="S-702", assignment="Poetry essay", mark=78),
            call("record_mark", student_id="S-703", assignment="Poetry essay", mark=85),
            call("record_mark", student_id="S-704", assignment="Poetry essay", mark=88),
            reply("Recorded: Ana 91, Ben 78, Chloe 85, Dmitri 88."),
        ),
        tags=("fan-out", "chain"),
    ),
    Mission(
        "grade-ben-average",
        "What's Ben Okoye's average mark in 7B so far?",
        Gradebook,
        check_ben_average,
        reference=(
            call("list_students", class_name="7B"),
            call("get_marks", student_id="S-702"),
            reply("Ben Okoye's average is 75 ((72 + 88 + 65) / 3)."),
        ),
        tags=("chain", "arithmetic"),
    ),
    Mission(
        "grade-support-flags",
        "Chloe Brandt and Ella Moreau in 7B had a rough term. Work out each one's average "
        "mark, and flag for extra support whichever of them averages below 65.",
        Gradebook,
        check_support_flags,
        reference=(
            call("list_students", class_name="7B"),
            call("get_marks", student_id="S-703"),
            call("get_marks", student_id="S-705"),
            call("flag_for_support", student_id="S-703", reason="average 61, below 65"),
            reply("Chloe averages 61 and is flagged for support; Ella averages 68, not flagged."),
        ),
        tags=("conditional", "fan-out", "arithmetic"),
    ),
    # IT helpdesk
    Mission(
        "desk-printer-assign",
        "Marta Silva's printer ticket: assign it to whichever hardware technician has the "
        "fewest open tickets.",
        Helpdesk,
        check_printer_assign,
        reference=(
            call("search_tickets", text="printer", reporter="Marta Silva"),
            call("list_technicians", team="hardware"),
            call("assign_ticket", ticket_id="T-1033", technician="Sofia Ruiz"),
            reply("Marta's printer ticket T-1033 is assigned to Sofia Ruiz (1 open ticket)."),
        ),
        tags=("chain",),
    ),
    Mission(
        "desk-close-resets",
        "All the password resets are done: close every open password-reset ticket with "
        "the resolution 'Password reset done'.",
        Helpdesk,
        check_close_resets,
        reference=(
            call("search_tickets", text="password reset", status="open"),
            call("close_ticket", ticket_id="T-1031", resolution="Password reset done"),
            call("close_ticket", ticket_id="T-1034", resolution="Password reset done"),
            call("close_ticket", ticket_id="T-1037", resolution="Password reset done"),
            reply("Closed T-1031, T-1034 and T-1037."),
        ),
        tags=("fan-out",),
    ),
    Mission(
        "desk-vpn-chase",
        "Omar Haddad is chasing his VPN ticket. If nobody has picked it up yet, assign it to "
        "Lena Hart and set it to high priority; if someone already has it, just add a "
        "comment that Omar is chasing it.",
        Helpdesk,
        check_vpn_chase,
        reference=(
            call("search_tickets", text="VPN", reporter="Omar Haddad"),
            call("add_comment", ticket_id="T-1036", text="Omar is chasing this ticket."),
            reply("Raj Patel already has T-1036, so I added a comment that Omar is chasing it."),
        ),
        tags=("conditional",),
    ),
    Mission(
        "desk-raise-1042",
        "Raise ticket T-1042 to high priority.",
        Helpdesk,
        check_raise_1042,
        reference=(
            call("set_priority", ticket_id="T-1042", priority="high"),
            reply("T-1042 is now high priority."),
        ),
        tags=("single",),
    ),
    # train desk
    Mission(
        "train-full-fallback",
        "Book 2 seats for Elena Fischer on the 08:15 from Leeds to York on 18 September. "
        "If that train is full, book the next one after it instead.",
        TrainDesk,
        check_full_fallback,
        reference=(
            call("find_trains", origin="Leeds", destination="York", date="2025-09-18"),
            call("book_seats", train_id="TR-405", passenger="Elena Fischer", seats=2),
            reply("The 08:15 is full, so Elena has 2 seats on the 09:15 (TR-405), 22.40."),
        ),
        tags=("conditional", "chain"),
    ),
    Mission(
        "train-cancel-day",
        "Tom Becker can't travel on 20 September any more. Cancel all his bookings for that "
        "day and tell me how much he gets back in total.",
        TrainDesk,
        check_cancel_day,
        reference=(
            call("list_bookings", passenger="Tom Becker"),
            call("cancel_booking", booking_id="BK-3301"),
            call("cancel_booking", booking_id="BK-3302"),
            reply("Cancelled BK-3301 and BK-3302; Tom gets 29.50 back in total."),
        ),
        tags=("fan-out", "arithmetic"),
    ),
    Mission(
        "train-move-later",
        "Sara Lind wants to go to York on 18 September an hour later than she's booked. Move "
        "her booking to that train and tell me how much the fare changes.",
        TrainDesk,
        check_move_later,
        reference=(
            call("list_bookings", passenger="Sara Lind"),
            call("find_trains", origin="Leeds", destination="York", date="2025-09-18"),
            call("change_booking", booking_id="BK-3304", new_train_id="TR-407"),
            reply("Moved to the 10:15 (TR-407): 19.60 instead of 22.40, 2.80 less."),
        ),
        tags=("chain", "arithmetic"),
    ),
    Mission(
        "train-cancel-ref",
        "Please cancel my booking BK-3310.",
        TrainDesk,
        check_cancel_ref,
        reference=(
            call("cancel_booking", booking_id="BK-3310"),
            reply("Booking BK-3310 is cancelled; 42.00 will be refunded."),
        ),
        tags=("single",),
    ),
]

SUITE = Suite("chores", tuple(MISSIONS), description="16 user-written chores over 4 new worlds")
