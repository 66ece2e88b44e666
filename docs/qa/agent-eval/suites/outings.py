"""outings: 16 missions over four small stateful worlds.

A bistro's reservations desk, a gym's class bookings, a parcel-locker desk and a
greenhouse. Written as a new user of `taskforce eval`, from its README alone; none of these
tools exist in taskforce itself. Today is Monday 2025-09-15 in every world, and the dates
in the data and the missions are in the days around it. Everything is deterministic: no
randomness, no clock, no network.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Any

from taskforce.errors import ToolInputError
from taskforce.evals import Mission, Suite, Verdict
from taskforce.evals.mission import has_number
from taskforce.testing import call, reply
from taskforce.tools import FunctionTool

TODAY = "2025-09-15"
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def _norm(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", str(text).lower())


def _date(value: str) -> str:
    text = str(value).strip()
    if not _DATE.match(text):
        raise ToolInputError(f"date {value!r} must be YYYY-MM-DD, e.g. 2025-09-19")
    return text


def _verdict(problems: list[str], state: str) -> Verdict:
    """Solved when nothing is wrong; the reason names what was wrong, then the state."""
    if problems:
        return Verdict(False, "; ".join(problems) + f" | {state}")
    return Verdict(True, state)


# --------------------------------------------------------------------------- restaurant
SITTINGS = ("18:00", "19:30", "21:00")
TABLES = {"T1": 2, "T2": 2, "T3": 4, "T4": 4, "T5": 6}


@dataclass
class Booking:
    """One reservation at the bistro."""

    name: str
    date: str
    time: str
    party: int
    table: str
    status: str = "booked"


class Restaurant:
    """A bistro's reservations desk: five tables, three sittings a night, a waiting list."""

    def __init__(self) -> None:
        self.bookings: dict[str, Booking] = {
            "R-4417": Booking("Lindqvist", "2025-09-17", "19:30", 3, "T3"),
            "R-4790": Booking("Kaur", "2025-09-17", "19:30", 4, "T4"),
            "R-3902": Booking("Brandt", "2025-09-16", "18:00", 2, "T1"),
            "R-4120": Booking("Brandt", "2025-09-20", "21:00", 4, "T4"),
            "R-5051": Booking("Brandt", "2025-10-04", "19:30", 2, "T2"),
            "R-4788": Booking("Osei", "2025-09-19", "19:30", 6, "T5"),
            "R-4801": Booking("Novak", "2025-09-19", "19:30", 4, "T3"),
            "R-4802": Booking("Ito", "2025-09-19", "19:30", 3, "T4"),
            "R-4633": Booking("Haddad", "2025-09-27", "19:30", 2, "T1"),
        }
        self.initial = {k: replace(v) for k, v in self.bookings.items()}
        self.waitlist: list[dict[str, Any]] = []
        self._next = 5210

    def _booking(self, reservation_id: str) -> tuple[str, Booking]:
        key = str(reservation_id).strip().upper()
        if key not in self.bookings or self.bookings[key].status != "booked":
            raise ToolInputError(
                f"no open reservation {reservation_id!r}; use find_reservations with the name"
            )
        return key, self.bookings[key]

    def _slot(self, date: str, time: str) -> tuple[str, str]:
        day, hour = _date(date), str(time).strip()
        if hour not in SITTINGS:
            raise ToolInputError(f"no sitting at {time!r}; sittings are {', '.join(SITTINGS)}")
        return day, hour

    def _free(self, date: str, time: str, party: int, ignore: str = "") -> list[str]:
        taken = {
            b.table
            for k, b in self.bookings.items()
            if b.status == "booked" and (b.date, b.time) == (date, time) and k != ignore
        }
        return [t for t, seats in TABLES.items() if seats >= party and t not in taken]

    def find_reservations(self, name: str) -> list[dict[str, Any]]:
        """The open reservations under a guest's name, with reservation ids."""
        want = _norm(name)
        return [
            {"reservation_id": k, "name": b.name, "date": b.date, "time": b.time}
            | {"party_size": b.party, "table": b.table}
            for k, b in self.bookings.items()
            if want and want in _norm(b.name) and b.status == "booked"
        ]

    def free_tables(self, date: str, time: str, party_size: int) -> list[dict[str, Any]]:
        """Tables free at a sitting (18:00, 19:30 or 21:00) that seat a party of that size."""
        day, hour = self._slot(date, time)
        return [{"table": t, "seats": TABLES[t]} for t in self._free(day, hour, party_size)]

    def book_table(self, name: str, date: str, time: str, party_size: int) -> dict[str, Any]:
        """Reserve the smallest free table that fits the party at a sitting (YYYY-MM-DD, HH:MM)."""
        day, hour = self._slot(date, time)
        if not 1 <= party_size <= 6:
            raise ToolInputError("party_size must be 1 to 6; the biggest table seats 6")
        free = self._free(day, hour, party_size)
        if not free:
            raise ToolInputError(
                f"no free table for {party_size} on {day} at {hour}; "
                "try another sitting or use add_to_waitlist"
            )
        key = f"R-{self._next}"
        self._next += 1
        self.bookings[key] = Booking(name.strip(), day, hour, party_size, free[0])
        return {"reservation_id": key, "table": free[0], "date": day, "time": hour}

    def change_party_size(self, reservation_id: str, party_size: int) -> dict[str, Any]:
        """Change how many guests a reservation is for; moves it to a free table that fits."""
        key, b = self._booking(reservation_id)
        if not 1 <= party_size <= 6:
            raise ToolInputError("party_size must be 1 to 6; the biggest table seats 6")
        if TABLES[b.table] < party_size:
            free = self._free(b.date, b.time, party_size, ignore=key)
            if not free:
                raise ToolInputError(f"no free table for {party_size} at that sitting")
            b.table = free[0]
        b.party = party_size
        return {"reservation_id": key, "party_size": party_size, "table": b.table}

    def cancel_reservation(self, reservation_id: str) -> str:
        """Cancel one reservation by its id."""
        key, b = self._booking(reservation_id)
        b.status = "cancelled"
        return f"{key} ({b.name}, {b.date} {b.time}) cancelled"

    def add_to_waitlist(self, name: str, date: str, time: str, party_size: int) -> str:
        """Put a party on the waiting list for a sitting that is full."""
        day, hour = self._slot(date, time)
        self.waitlist.append({"name": name.strip(), "date": day, "time": hour})
        self.waitlist[-1]["party_size"] = party_size
        return f"{name} ({party_size}) is on the waiting list for {day} at {hour}"

    def tools(self) -> list[FunctionTool]:
        """The desk's tools."""
        return [
            FunctionTool(self.find_reservations, read_only=True),
            FunctionTool(self.free_tables, read_only=True),
            FunctionTool(self.book_table),
            FunctionTool(self.change_party_size),
            FunctionTool(self.cancel_reservation),
            FunctionTool(self.add_to_waitlist),
        ]

    def new(self) -> dict[str, Booking]:
        """Reservations made during the run and still booked (one cancelled again is undone)."""
        return {
            k: b for k, b in self.bookings.items() if k not in self.initial and b.status == "booked"
        }

    def changed(self) -> dict[str, Booking]:
        """Reservations that existed before the run and are not as they were."""
        return {
            k: b for k, b in self.bookings.items() if k in self.initial and self.initial[k] != b
        }

    def state(self) -> str:
        """A summary for the checker's reason."""
        return f"new {self.new()}, changed {self.changed()}, waitlist {self.waitlist}"


def _check_haddad(w: Restaurant, answer: str) -> Verdict:
    new = list(w.new().values())
    problems = []
    if len(new) != 1:
        problems.append(f"expected one new reservation, got {len(new)}")
    elif (new[0].date, new[0].time, new[0].party) != ("2025-09-20", "18:00", 4):
        problems.append("the reservation is not for 4 on 2025-09-20 at 18:00")
    elif "haddad" not in _norm(new[0].name):
        problems.append("the reservation is not under Haddad")
    if w.changed() or w.waitlist:
        problems.append("other reservations or the waiting list were touched")
    return _verdict(problems, w.state())


def _check_lindqvist(w: Restaurant, answer: str) -> Verdict:
    b = w.bookings["R-4417"]
    problems = []
    if b.status != "booked" or b.party != 5 or (b.date, b.time) != ("2025-09-17", "19:30"):
        problems.append("R-4417 is not a booking for 5 on 2025-09-17 at 19:30")
    if w.new():
        problems.append("a new reservation was made instead of changing the existing one")
    if set(w.changed()) - {"R-4417"} or w.waitlist:
        problems.append("other reservations or the waiting list were touched")
    return _verdict(problems, w.state())


def _check_ruiz(w: Restaurant, answer: str) -> Verdict:
    want = {"date": "2025-09-19", "time": "19:30", "party_size": 6}
    ruiz = [e for e in w.waitlist if "ruiz" in _norm(e["name"])]
    problems = []
    if not any(all(e[k] == v for k, v in want.items()) for e in ruiz):
        problems.append("Ruiz is not on the waiting list for 6 on 2025-09-19 at 19:30")
    if w.new():
        problems.append("a table was booked although the user wanted no other time")
    if len(w.waitlist) != 1:
        problems.append(f"the waiting list should hold one entry, it holds {len(w.waitlist)}")
    if w.changed():
        problems.append("existing reservations were changed")
    return _verdict(problems, w.state())


def _check_brandt(w: Restaurant, answer: str) -> Verdict:
    problems = []
    for key in ("R-3902", "R-4120"):
        if w.bookings[key].status != "cancelled":
            problems.append(f"{key} (Brandt, September) is not cancelled")
    if w.bookings["R-5051"].status != "booked":
        problems.append("the October booking R-5051 was cancelled")
    if set(w.changed()) - {"R-3902", "R-4120"} or w.new() or w.waitlist:
        problems.append("other reservations were touched")
    return _verdict(problems, w.state())


# --------------------------------------------------------------------------- gym
@dataclass
class GymClass:
    """One class on the timetable."""

    kind: str
    date: str
    time: str
    instructor: str
    capacity: int
    booked: int
    credits: int


@dataclass
class Member:
    """A gym member and their class credits."""

    name: str
    credits: int


class Gym:
    """A gym's class timetable, members with class credits, and bookings."""

    def __init__(self) -> None:
        c = GymClass
        self.classes = {
            "C-1611": c("yoga", "2025-09-16", "07:00", "Mara", 12, 9, 2),
            "C-1614": c("spin", "2025-09-16", "18:00", "Dario", 15, 15, 3),
            "C-1617": c("pilates", "2025-09-16", "19:00", "Greta", 10, 4, 2),
            "C-1620": c("yoga", "2025-09-16", "20:15", "Sol", 12, 7, 2),
            "C-1702": c("spin", "2025-09-17", "07:00", "Dario", 15, 3, 2),
            "C-1709": c("hiit", "2025-09-17", "19:00", "Kofi", 14, 14, 3),
            "C-1710": c("pilates", "2025-09-17", "19:00", "Greta", 10, 6, 2),
            "C-1712": c("yoga", "2025-09-17", "20:15", "Sol", 12, 5, 2),
            "C-1801": c("spin", "2025-09-18", "07:00", "Dario", 15, 8, 2),
            "C-1805": c("pilates", "2025-09-18", "12:30", "Greta", 10, 9, 2),
            "C-1808": c("spin", "2025-09-18", "18:00", "Kofi", 15, 12, 3),
            "C-1811": c("yoga", "2025-09-18", "19:30", "Mara", 12, 2, 2),
        }
        self.members = {
            "GM-7731": Member("Priya Nair", 10),
            "GM-4471": Member("Arjun Nair", 3),
            "GM-2208": Member("Tom Becker", 6),
            "GM-5164": Member("Lena Fischer", 1),
            "GM-3390": Member("Jonas Weber", 8),
        }
        self.bookings: set[tuple[str, str]] = {("GM-2208", "C-1702"), ("GM-3390", "C-1614")}
        self.initial = set(self.bookings)
        self.top_ups: list[tuple[str, int]] = []

    def _member(self, member_id: str) -> str:
        key = str(member_id).strip().upper()
        if key not in self.members:
            raise ToolInputError(f"no member {member_id!r}; use find_member with their name")
        return key

    def _class(self, class_id: str) -> tuple[str, GymClass]:
        key = str(class_id).strip().upper()
        if key not in self.classes:
            raise ToolInputError(f"no class {class_id!r}; use class_schedule for a date")
        return key, self.classes[key]

    def find_member(self, name: str) -> list[dict[str, Any]]:
        """Members whose name matches, with their member_id and class credits."""
        want = _norm(name)
        return [
            {"member_id": k, "name": m.name, "credits": m.credits}
            for k, m in self.members.items()
            if want and want in _norm(m.name)
        ]

    def class_schedule(self, date: str) -> list[dict[str, Any]]:
        """The classes on a date (YYYY-MM-DD): class_id, kind, time, spots left, credit cost."""
        day = _date(date)
        return [
            {"class_id": k, "kind": g.kind, "time": g.time, "instructor": g.instructor}
            | {"spots_left": g.capacity - g.booked, "cost_credits": g.credits}
            for k, g in self.classes.items()
            if g.date == day
        ]

    def member_bookings(self, member_id: str) -> list[dict[str, Any]]:
        """The classes a member is booked into."""
        m = self._member(member_id)
        return [
            {"class_id": k, "kind": g.kind, "date": g.date, "time": g.time}
            for k, g in self.classes.items()
            if (m, k) in self.bookings
        ]

    def book_class(self, member_id: str, class_id: str) -> str:
        """Book a member into a class; its credit cost comes off the member's credits."""
        m = self._member(member_id)
        key, g = self._class(class_id)
        member = self.members[m]
        if (m, key) in self.bookings:
            raise ToolInputError(f"{m} is already booked into {key}")
        if g.booked >= g.capacity:
            raise ToolInputError(f"{key} ({g.kind} {g.date} {g.time}) is full")
        if member.credits < g.credits:
            raise ToolInputError(
                f"{m} has {member.credits} credits and {key} costs {g.credits}; "
                "use add_credits first"
            )
        member.credits -= g.credits
        g.booked += 1
        self.bookings.add((m, key))
        return f"{member.name} booked into {g.kind} {g.date} {g.time}; {member.credits} left"

    def cancel_booking(self, member_id: str, class_id: str) -> str:
        """Take a member out of a class; the credits are refunded."""
        m = self._member(member_id)
        key, g = self._class(class_id)
        if (m, key) not in self.bookings:
            raise ToolInputError(f"{m} is not booked into {key}; see member_bookings")
        self.bookings.discard((m, key))
        g.booked -= 1
        self.members[m].credits += g.credits
        return f"{m} taken out of {key}; {g.credits} credits refunded"

    def add_credits(self, member_id: str, credits: int) -> str:
        """Sell a member extra class credits (1 to 50)."""
        m = self._member(member_id)
        if not 1 <= credits <= 50:
            raise ToolInputError("credits must be between 1 and 50")
        self.members[m].credits += credits
        self.top_ups.append((m, credits))
        return f"{m} now has {self.members[m].credits} credits"

    def tools(self) -> list[FunctionTool]:
        """The gym desk's tools."""
        return [
            FunctionTool(self.find_member, read_only=True),
            FunctionTool(self.class_schedule, read_only=True),
            FunctionTool(self.member_bookings, read_only=True),
            FunctionTool(self.book_class),
            FunctionTool(self.cancel_booking),
            FunctionTool(self.add_credits),
        ]

    def state(self) -> str:
        """A summary for the checker's reason."""
        added = sorted(self.bookings - self.initial)
        removed = sorted(self.initial - self.bookings)
        return f"new bookings {added}, removed {removed}, top-ups {self.top_ups}"


def _gym_only(w: Gym, want: set[tuple[str, str]]) -> list[str]:
    problems = []
    if w.bookings - w.initial != want:
        problems.append(f"the new bookings should be exactly {sorted(want)}")
    if w.initial - w.bookings:
        problems.append("existing bookings were cancelled")
    return problems


def _check_spin_spots(w: Gym, answer: str) -> Verdict:
    problems = [] if has_number(answer, 3) else ["the answer does not say 3 spots"]
    if w.bookings != w.initial or w.top_ups:
        problems.append("something was booked or bought; the user only asked")
    return _verdict(problems, f"{w.state()}; answer {answer[:120]!r}")


def _check_priya(w: Gym, answer: str) -> Verdict:
    problems = _gym_only(w, {("GM-7731", "C-1611")})
    if w.top_ups:
        problems.append("credits were bought; Priya had enough")
    return _verdict(problems, w.state())


def _check_tom(w: Gym, answer: str) -> Verdict:
    problems = _gym_only(w, {("GM-2208", "C-1710")})
    if w.top_ups:
        problems.append("credits were bought; Tom had enough")
    return _verdict(problems, w.state())


def _check_lena(w: Gym, answer: str) -> Verdict:
    problems = _gym_only(w, {("GM-5164", "C-1801"), ("GM-5164", "C-1808")})
    bought = sum(n for m, n in w.top_ups if m == "GM-5164")
    if bought != 4:
        problems.append(f"Lena should get exactly the 4 credits she was missing, got {bought}")
    if any(m != "GM-5164" for m, _ in w.top_ups):
        problems.append("credits were sold to someone else")
    if not has_number(answer, 4):
        problems.append("the answer does not say 4 credits were added")
    return _verdict(problems, f"{w.state()}; answer {answer[:120]!r}")


# --------------------------------------------------------------------------- parcels
@dataclass
class Parcel:
    """A parcel at (or on its way to) a locker site."""

    recipient: str
    sender: str
    site: str
    waiting_days: int
    deadline: str
    weight_kg: float
    status: str = "in_locker"


def _postage(weight_kg: float) -> float:
    """4.90 up to 2 kg, then 1.30 for each started kg above that."""
    extra = 0
    while 2 + extra < weight_kg - 1e-9:
        extra += 1
    return round(4.90 + 1.30 * extra, 2)


class Lockers:
    """A courier's parcel-locker desk: parcels waiting at three locker sites, new sends."""

    SITES = ("Station", "Harbour", "Market Square")

    def __init__(self) -> None:
        p = Parcel
        self.parcels = {
            "PX-58213": p("Noor Haddad", "Kestrel Books", "Harbour", 2, "2025-09-20", 0.8),
            "PX-60117": p("Ines Moreau", "Lumen Optics", "Station", 6, "2025-09-16", 1.2),
            "PX-60342": p("Ines Moreau", "Fieldhouse Tea", "Station", 1, "2025-09-21", 0.5),
            "PX-61009": p("Ines Moreau", "Orla & Finch", "Harbour", 3, "2025-09-19", 2.3),
            "PX-59880": p("Ines Moreau", "Brightwater Cycles", "Harbour", 0, "", 6.0, "in_transit"),
            "PX-57004": p("Dev Malhotra", "Kestrel Books", "Market Square", 4, "2025-09-18", 3.1),
        }
        self.initial = {k: replace(v) for k, v in self.parcels.items()}
        self.free = {"Station": 0, "Harbour": 3, "Market Square": 2}
        self.extensions: list[tuple[str, int]] = []
        self.sent: list[dict[str, Any]] = []
        self._next = 70412

    def _parcel(self, tracking_number: str) -> tuple[str, Parcel]:
        key = str(tracking_number).strip().upper()
        if key not in self.parcels:
            raise ToolInputError(
                f"no parcel {tracking_number!r}; use parcels_for with the recipient's name"
            )
        return key, self.parcels[key]

    def _site(self, site: str) -> str:
        for s in self.SITES:
            if _norm(s) == _norm(site):
                return s
        raise ToolInputError(f"no locker site {site!r}; sites are {', '.join(self.SITES)}")

    def track_parcel(self, tracking_number: str) -> dict[str, Any]:
        """Where a parcel is, its status, days waiting and the last day to pick it up."""
        key, p = self._parcel(tracking_number)
        return {"tracking_number": key, "recipient": p.recipient, "sender": p.sender} | {
            "site": p.site,
            "status": p.status,
            "waiting_days": p.waiting_days,
            "pickup_deadline": p.deadline,
            "weight_kg": p.weight_kg,
        }

    def parcels_for(self, recipient: str) -> list[dict[str, Any]]:
        """Every parcel for a recipient: tracking number, sender, site and status."""
        want = _norm(recipient)
        return [
            {"tracking_number": k, "sender": p.sender, "site": p.site, "status": p.status}
            for k, p in self.parcels.items()
            if want and want in _norm(p.recipient)
        ]

    def redirect_parcel(self, tracking_number: str, site: str) -> str:
        """Move a parcel waiting in a locker to another locker site (needs a free compartment)."""
        key, p = self._parcel(tracking_number)
        to = self._site(site)
        if p.status != "in_locker":
            raise ToolInputError(f"{key} is {p.status}; only parcels in a locker can be moved")
        if to == p.site:
            raise ToolInputError(f"{key} is already at {to}")
        if self.free[to] < 1:
            raise ToolInputError(f"{to} has no free compartment")
        self.free[to] -= 1
        self.free[p.site] += 1
        p.site = to
        return f"{key} will be at {to} by tomorrow; deadline unchanged ({p.deadline})"

    def extend_pickup(self, tracking_number: str, days: int) -> str:
        """Give a parcel in a locker 1 to 3 more days before it goes back to the sender."""
        key, p = self._parcel(tracking_number)
        if p.status != "in_locker":
            raise ToolInputError(f"{key} is {p.status}, not in a locker")
        if not 1 <= days <= 3:
            raise ToolInputError("days must be 1, 2 or 3")
        if any(k == key for k, _ in self.extensions):
            raise ToolInputError(f"{key} was already extended once")
        day = int(p.deadline[-2:]) + days
        p.deadline = f"{p.deadline[:-2]}{day:02d}"
        self.extensions.append((key, days))
        return f"{key} can now be picked up until {p.deadline}"

    def ship_parcel(
        self, sender: str, recipient: str, weight_kg: float, site: str
    ) -> dict[str, Any]:
        """Send a parcel to a recipient's locker site; returns its tracking number and price."""
        to = self._site(site)
        if not 0 < weight_kg <= 20:
            raise ToolInputError("weight_kg must be more than 0 and at most 20")
        key = f"PX-{self._next}"
        self._next += 1
        price = _postage(weight_kg)
        self.sent.append({"tracking_number": key, "sender": sender, "recipient": recipient})
        self.sent[-1] |= {"weight_kg": weight_kg, "site": to, "price_eur": price}
        return {"tracking_number": key, "site": to, "price_eur": price}

    def tools(self) -> list[FunctionTool]:
        """The locker desk's tools."""
        return [
            FunctionTool(self.track_parcel, read_only=True),
            FunctionTool(self.parcels_for, read_only=True),
            FunctionTool(self.redirect_parcel),
            FunctionTool(self.extend_pickup),
            FunctionTool(self.ship_parcel),
        ]

    def changed(self) -> dict[str, Parcel]:
        """Parcels that are not as they were before the run."""
        return {k: p for k, p in self.parcels.items() if self.initial[k] != p}

    def state(self) -> str:
        """A summary for the checker's reason."""
        return f"changed {self.changed()}, extensions {self.extensions}, sent {self.sent}"


def _check_where(w: Lockers, answer: str) -> Verdict:
    problems = [] if "harbour" in answer.lower() else ["the answer does not say Harbour"]
    if w.changed() or w.sent:
        problems.append("something was changed; the user only asked")
    return _verdict(problems, f"{w.state()}; answer {answer[:120]!r}")


def _check_ines_market(w: Lockers, answer: str) -> Verdict:
    problems = [
        f"{k} is at {w.parcels[k].site}, not Market Square"
        for k in ("PX-60117", "PX-60342")
        if w.parcels[k].site != "Market Square"
    ]
    if set(w.changed()) - {"PX-60117", "PX-60342"}:
        problems.append("parcels not at the Station were moved too")
    if w.extensions or w.sent:
        problems.append("pickups were extended or parcels sent; nobody asked")
    return _verdict(problems, w.state())


def _check_lumen(w: Lockers, answer: str) -> Verdict:
    p = w.parcels["PX-60117"]
    problems = []
    if w.extensions != [("PX-60117", 3)] or p.deadline != "2025-09-19":
        problems.append("PX-60117 (6 days waiting) should be extended by 3 days, and only it")
    if p.site != "Station" or set(w.changed()) - {"PX-60117"} or w.sent:
        problems.append("something else was changed")
    return _verdict(problems, w.state())


def _check_postage(w: Lockers, answer: str) -> Verdict:
    weights = sorted(float(s["weight_kg"]) for s in w.sent)
    problems = []
    if weights != [1.5, 4.0]:
        problems.append(f"expected two parcels of 1.5 and 4 kg, sent {weights}")
    for s in w.sent:
        ok = "annasorel" in _norm(s["recipient"]) and "ben" in _norm(s["sender"])
        if not ok or s["site"] != "Harbour":
            problems.append(f"{s['tracking_number']} is not from Ben to Anna Sorel at Harbour")
    if not has_number(answer, 12.40):
        problems.append("the answer does not give the total 12.40")
    if w.changed() or w.extensions:
        problems.append("waiting parcels were touched")
    return _verdict(problems, f"{w.state()}; answer {answer[:160]!r}")


# --------------------------------------------------------------------------- greenhouse
@dataclass
class Bed:
    """A growing bed: its crop, soil moisture, the crop's minimum, and what is ready."""

    crop: str
    moisture: float
    minimum: float
    ready_kg: float


class Greenhouse:
    """A greenhouse: six beds, a water tank, a roof vent and a harvest log."""

    def __init__(self) -> None:
        self.beds = {
            "GH-14": Bed("tomatoes", 34, 40, 3.4),
            "GH-21": Bed("basil", 52, 45, 0.6),
            "GH-27": Bed("peppers", 28, 35, 1.8),
            "GH-33": Bed("cucumbers", 61, 50, 2.6),
            "GH-38": Bed("lettuce", 47, 50, 0.9),
            "GH-42": Bed("strawberries", 55, 45, 0.7),
        }
        self.tank_litres = 40.0
        self.temperature = 26.5
        self.humidity = 78
        self.vent = 10
        self.vent_settings: list[int] = []
        self.watered: dict[str, float] = {}
        self.harvested: dict[str, float] = {}

    def _bed(self, bed_id: str) -> tuple[str, Bed]:
        key = str(bed_id).strip().upper()
        if key not in self.beds:
            raise ToolInputError(f"no bed {bed_id!r}; list_beds gives the bed ids")
        return key, self.beds[key]

    def list_beds(self) -> list[dict[str, Any]]:
        """Every bed: bed_id, crop, soil moisture %, the crop's minimum moisture %, kg ready."""
        return [
            {"bed_id": k, "crop": b.crop, "moisture_pct": b.moisture}
            | {"min_moisture_pct": b.minimum, "ready_to_pick_kg": b.ready_kg}
            for k, b in self.beds.items()
        ]

    def climate(self) -> dict[str, Any]:
        """The air temperature (°C), relative humidity (%) and roof vent opening (%) now."""
        return {"celsius": self.temperature, "humidity_pct": self.humidity, "vent_pct": self.vent}

    def water_bed(self, bed_id: str, litres: float) -> str:
        """Water a bed from the tank (1 to 20 litres); each litre raises its moisture 1.5 points."""
        key, b = self._bed(bed_id)
        if not 1 <= litres <= 20:
            raise ToolInputError("litres must be between 1 and 20")
        if litres > self.tank_litres:
            raise ToolInputError(f"only {self.tank_litres} litres left in the tank")
        self.tank_litres -= litres
        b.moisture = round(b.moisture + 1.5 * litres, 1)
        self.watered[key] = self.watered.get(key, 0) + litres
        return f"{key} ({b.crop}) watered, moisture now {b.moisture}%"

    def harvest(self, bed_id: str, kg: float) -> str:
        """Pick `kg` of what is ready in a bed (not more than is ready) into the harvest log."""
        key, b = self._bed(bed_id)
        if not 0 < kg <= b.ready_kg + 1e-9:
            raise ToolInputError(f"{key} has {b.ready_kg} kg ready to pick")
        b.ready_kg = round(b.ready_kg - kg, 2)
        self.harvested[key] = round(self.harvested.get(key, 0) + kg, 2)
        return f"picked {kg} kg of {b.crop} from {key}"

    def set_vent(self, percent: int) -> str:
        """Open the roof vent to `percent` (0 closed, 100 fully open)."""
        if not 0 <= percent <= 100:
            raise ToolInputError("percent must be 0 to 100")
        self.vent = percent
        self.vent_settings.append(percent)
        return f"roof vent at {percent}%"

    def tools(self) -> list[FunctionTool]:
        """The greenhouse's tools."""
        return [
            FunctionTool(self.list_beds, read_only=True),
            FunctionTool(self.climate, read_only=True),
            FunctionTool(self.water_bed),
            FunctionTool(self.harvest),
            FunctionTool(self.set_vent),
        ]

    def state(self) -> str:
        """A summary for the checker's reason."""
        return f"vent {self.vent_settings}, watered {self.watered}, harvested {self.harvested}"


def _check_vent_40(w: Greenhouse, answer: str) -> Verdict:
    problems = [] if w.vent == 40 else [f"the vent is at {w.vent}%, not 40%"]
    if w.watered or w.harvested:
        problems.append("beds were watered or picked; nobody asked")
    return _verdict(problems, w.state())


def _check_dry_beds(w: Greenhouse, answer: str) -> Verdict:
    want = {"GH-14": 5.0, "GH-27": 5.0, "GH-38": 5.0}
    problems = [] if w.watered == want else [f"expected {want} (the beds below minimum)"]
    if w.harvested or w.vent_settings:
        problems.append("the vent or the harvest was touched")
    return _verdict(problems, w.state())


def _check_vent_if_hot(w: Greenhouse, answer: str) -> Verdict:
    problems = [] if w.vent == 25 else [f"at 26.5 °C the vent should be 25%, it is {w.vent}%"]
    if w.vent_settings.count(100) or w.watered or w.harvested:
        problems.append("the vent was opened fully, or beds were touched")
    return _verdict(problems, w.state())


def _check_harvest(w: Greenhouse, answer: str) -> Verdict:
    want = {"GH-14": 3.4, "GH-27": 1.8}
    problems = [] if w.harvested == want else [f"expected the harvest {want}"]
    if not has_number(answer, 5.2):
        problems.append("the answer does not give the total 5.2 kg")
    if w.watered or w.vent_settings:
        problems.append("beds were watered or the vent moved; nobody asked")
    return _verdict(problems, f"{w.state()}; answer {answer[:120]!r}")


# --------------------------------------------------------------------------- missions
MISSIONS = [
    # restaurant
    Mission(
        "resto-haddad-saturday",
        "Book a table for 4 under the name Haddad, Saturday 20 September 2025 at 18:00.",
        Restaurant,
        _check_haddad,
        reference=(
            call("book_table", name="Haddad", date="2025-09-20", time="18:00", party_size=4),
            reply("Booked: Haddad, 4 people, Saturday 20 September at 18:00 (R-5210, T3)."),
        ),
        tags=("single",),
    ),
    Mission(
        "resto-lindqvist-five",
        "the Lindqvists just rang, they're coming as 5 now instead of 3 on wednesday. "
        "can you sort out their booking?",
        Restaurant,
        _check_lindqvist,
        reference=(
            call("find_reservations", name="Lindqvist"),
            call("change_party_size", reservation_id="R-4417", party_size=5),
            reply("Done: the Lindqvist booking R-4417 is now for 5, moved to table T5."),
        ),
        tags=("chain",),
    ),
    Mission(
        "resto-ruiz-waitlist",
        "Table for 6 please, name Ruiz, fri 19 sept 2025 at 19:30. If you can't fit us in "
        "then, put us on the waiting list for that time - we don't want a different time.",
        Restaurant,
        _check_ruiz,
        reference=(
            call("free_tables", date="2025-09-19", time="19:30", party_size=6),
            call("add_to_waitlist", name="Ruiz", date="2025-09-19", time="19:30", party_size=6),
            reply("Nothing for 6 is free at 19:30 on the 19th, so Ruiz is on the waiting list."),
        ),
        tags=("conditional",),
    ),
    Mission(
        "resto-brandt-september",
        "Please cancel all the reservations under Brandt for September. The one in October "
        "stays as it is.",
        Restaurant,
        _check_brandt,
        reference=(
            call("find_reservations", name="Brandt"),
            call("cancel_reservation", reservation_id="R-3902"),
            call("cancel_reservation", reservation_id="R-4120"),
            reply("Cancelled R-3902 (16 Sept) and R-4120 (20 Sept); the 4 October one stays."),
        ),
        tags=("fan-out", "chain"),
    ),
    # gym
    Mission(
        "gym-spin-spots",
        "how many places are still free in the 6pm spin class on thursday 18 sept 2025?",
        Gym,
        _check_spin_spots,
        reference=(
            call("class_schedule", date="2025-09-18"),
            reply("The 18:00 spin class on Thursday 18 September has 3 places left."),
        ),
        tags=("single",),
    ),
    Mission(
        "gym-priya-yoga",
        "Could you put Priya Nair in the early morning yoga on Tuesday (16/09/2025)?",
        Gym,
        _check_priya,
        reference=(
            call("find_member", name="Priya Nair"),
            call("class_schedule", date="2025-09-16"),
            call("book_class", member_id="GM-7731", class_id="C-1611"),
            reply("Priya Nair is booked into Tuesday's 07:00 yoga with Mara."),
        ),
        tags=("chain",),
    ),
    Mission(
        "gym-tom-hiit-or-pilates",
        "tom becker wants the 7pm HIIT class on wed 17 september 2025. if it's full, book "
        "him into the pilates at the same time instead",
        Gym,
        _check_tom,
        reference=(
            call("find_member", name="Tom Becker"),
            call("class_schedule", date="2025-09-17"),
            call("book_class", member_id="GM-2208", class_id="C-1710"),
            reply("The 19:00 HIIT is full, so Tom Becker is booked into the 19:00 pilates."),
        ),
        tags=("conditional", "chain"),
    ),
    Mission(
        "gym-lena-thursday-spin",
        "Lena Fischer wants to do every spin class on Thursday, 18 Sept 2025. Top up "
        "her account with exactly the credits she's missing, book her into all of them, and "
        "tell me how many credits you added.",
        Gym,
        _check_lena,
        reference=(
            call("find_member", name="Lena Fischer"),
            call("class_schedule", date="2025-09-18"),
            call("add_credits", member_id="GM-5164", credits=4),
            call("book_class", member_id="GM-5164", class_id="C-1801"),
            call("book_class", member_id="GM-5164", class_id="C-1808"),
            reply(
                "The two spin classes cost 2 + 3 = 5 credits and she had 1: I added 4 "
                "credits and booked her into 07:00 and 18:00."
            ),
        ),
        tags=("arithmetic", "fan-out", "chain"),
    ),
    # parcel lockers
    Mission(
        "parcel-where-58213",
        "where is parcel PX-58213 right now?",
        Lockers,
        _check_where,
        reference=(
            call("track_parcel", tracking_number="PX-58213"),
            reply("PX-58213 is waiting in a locker at Harbour (pick up by 2025-09-20)."),
        ),
        tags=("single",),
    ),
    Mission(
        "parcel-ines-to-market",
        "Hi, this is Ines Moreau. I can't get to the Station this week - could you move "
        "everything of mine that's sitting in the Station lockers over to Market Square?",
        Lockers,
        _check_ines_market,
        reference=(
            call("parcels_for", recipient="Ines Moreau"),
            call("redirect_parcel", tracking_number="PX-60117", site="Market Square"),
            call("redirect_parcel", tracking_number="PX-60342", site="Market Square"),
            reply("PX-60117 and PX-60342 are moving from Station to Market Square."),
        ),
        tags=("fan-out", "chain"),
    ),
    Mission(
        "parcel-lumen-extend",
        "Ines Moreau again. About my parcel from Lumen Optics: if it's been waiting in the "
        "locker for more than 5 days, extend the pickup by 3 days. If not, leave it and just "
        "tell me until when I can collect it.",
        Lockers,
        _check_lumen,
        reference=(
            call("parcels_for", recipient="Ines Moreau"),
            call("track_parcel", tracking_number="PX-60117"),
            call("extend_pickup", tracking_number="PX-60117", days=3),
            reply("It had waited 6 days, so I extended it: you can collect it until 2025-09-19."),
        ),
        tags=("conditional", "chain"),
    ),
    Mission(
        "parcel-two-boxes-postage",
        "I need to send two boxes to Anna Sorel, she collects at the Harbour lockers. One's "
        "1.5 kg, the other 4 kg. Sender is me, Ben Ode. What do I owe altogether?",
        Lockers,
        _check_postage,
        reference=(
            call(
                "ship_parcel",
                sender="Ben Ode",
                recipient="Anna Sorel",
                weight_kg=1.5,
                site="Harbour",
            ),
            call(
                "ship_parcel", sender="Ben Ode", recipient="Anna Sorel", weight_kg=4, site="Harbour"
            ),
            reply("Both are on their way: 4.90 + 7.50 = 12.40 euros in total."),
        ),
        tags=("arithmetic", "fan-out"),
    ),
    # greenhouse
    Mission(
        "gh-vent-40",
        "Open the roof vent to 40%.",
        Greenhouse,
        _check_vent_40,
        reference=(call("set_vent", percent=40), reply("The roof vent is open at 40%.")),
        tags=("single",),
    ),
    Mission(
        "gh-water-dry-beds",
        "water every bed that's drier than its crop wants, 5 litres each",
        Greenhouse,
        _check_dry_beds,
        reference=(
            call("list_beds"),
            call("water_bed", bed_id="GH-14", litres=5),
            call("water_bed", bed_id="GH-27", litres=5),
            call("water_bed", bed_id="GH-38", litres=5),
            reply("Watered the tomatoes, peppers and lettuce (5 litres each)."),
        ),
        tags=("fan-out", "conditional"),
    ),
    Mission(
        "gh-vent-if-hot",
        "Is it above 28 degrees in the greenhouse? If so, open the roof vent all the way; "
        "if not, set it to 25%.",
        Greenhouse,
        _check_vent_if_hot,
        reference=(
            call("climate"),
            call("set_vent", percent=25),
            reply("It's 26.5 °C, not above 28, so the vent is set to 25%."),
        ),
        tags=("conditional",),
    ),
    Mission(
        "gh-harvest-total",
        "Pick everything that's ready in the tomato and pepper beds, and tell me how many "
        "kilos that comes to in total.",
        Greenhouse,
        _check_harvest,
        reference=(
            call("list_beds"),
            call("harvest", bed_id="GH-14", kg=3.4),
            call("harvest", bed_id="GH-27", kg=1.8),
            reply("Picked 3.4 kg of tomatoes and 1.8 kg of peppers: 5.2 kg in total."),
        ),
        tags=("arithmetic", "chain"),
    ),
]

SUITE = Suite(
    "outings",
    tuple(MISSIONS),
    description="16 user-written missions: restaurant, gym, parcel lockers, greenhouse",
)
