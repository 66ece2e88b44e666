"""errands: 14 missions over four small stateful worlds (library, pet clinic, warehouse, home).

Written as a new user of `taskforce eval`; none of these tools exist in taskforce itself.
Today is 2025-06-10 in every world.
"""

from __future__ import annotations

import re

from taskforce.errors import ToolInputError
from taskforce.evals import Mission, Suite, Verdict
from taskforce.evals.mission import has_number
from taskforce.testing import call, reply
from taskforce.tools import FunctionTool

TODAY = "2025-06-10"


def _norm(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", str(text).lower())


# --------------------------------------------------------------------------- library
class Library:
    """A lending library: a catalogue, loans, holds and fines (0.25 a day late)."""

    def __init__(self) -> None:
        self.books = {
            "B-11": {"title": "The Salt Road", "author": "Maren Holt", "available": 2},
            "B-17": {"title": "Lanterns at Low Tide", "author": "Ursula Brennan", "available": 1},
            "B-23": {"title": "Winter Orchard", "author": "Ilse Carver", "available": 0},
            "B-29": {"title": "A Short History of Salt", "author": "Tomas Reyes", "available": 1},
        }
        # (member, book) -> due date
        self.loans: dict[tuple[str, str], str] = {("M-118", "B-11"): "2025-06-01"}
        self.holds: list[tuple[str, str]] = []
        self.fines = {"M-118": 1.50, "M-204": 0.0, "M-330": 0.0}
        self.payments: list[tuple[str, float]] = []
        self.returned: list[tuple[str, str]] = []

    def _book(self, book_id: str) -> dict:
        key = book_id.strip().upper()
        if key not in self.books:
            raise ToolInputError(f"no book {book_id!r}; use search_books to find a book_id")
        return self.books[key]

    def _member(self, member_id: str) -> str:
        key = member_id.strip().upper()
        if key not in self.fines:
            raise ToolInputError(f"no member {member_id!r}")
        return key

    def search_books(self, query: str) -> list[dict]:
        """Search the catalogue by words of the title or the author; returns book_id, title, author and copies available now."""
        words = [w for w in re.split(r"\W+", query.lower()) if w]
        hits = []
        for book_id, b in self.books.items():
            hay = (b["title"] + " " + b["author"]).lower()
            if words and all(w in hay for w in words):
                hits.append({"book_id": book_id, **b})
        return hits

    def member_loans(self, member_id: str) -> list[dict]:
        """The books a member has on loan, with their due dates."""
        m = self._member(member_id)
        return [
            {"book_id": b, "title": self.books[b]["title"], "due": due}
            for (mm, b), due in self.loans.items()
            if mm == m
        ]

    def borrow_book(self, member_id: str, book_id: str) -> str:
        """Lend a book to a member (needs a copy available); due in 21 days."""
        m = self._member(member_id)
        book = self._book(book_id)
        key = book_id.strip().upper()
        if book["available"] < 1:
            raise ToolInputError(f"no copy of {book['title']!r} is available; place a hold instead")
        book["available"] -= 1
        self.loans[(m, key)] = "2025-07-01"
        return f"{book['title']} lent to {m}, due 2025-07-01"

    def return_book(self, member_id: str, book_id: str) -> str:
        """Take back a book a member has on loan; a late return adds 0.25 per day to the member's fines."""
        m = self._member(member_id)
        book = self._book(book_id)
        key = book_id.strip().upper()
        if (m, key) not in self.loans:
            raise ToolInputError(f"{m} has no loan of {book_id!r}; see member_loans")
        due = self.loans.pop((m, key))
        book["available"] += 1
        self.returned.append((m, key))
        late = max(0, int(TODAY[-2:]) - int(due[-2:])) if due[:7] == TODAY[:7] else 0
        fine = round(late * 0.25, 2)
        self.fines[m] = round(self.fines[m] + fine, 2)
        return f"{book['title']} returned by {m}; {late} days late, fine added: {fine:.2f}"

    def member_fines(self, member_id: str) -> dict:
        """How much a member owes in fines, in euros."""
        m = self._member(member_id)
        return {"member_id": m, "owed": self.fines[m]}

    def pay_fine(self, member_id: str, amount: float) -> str:
        """Record a payment of `amount` euros against a member's fines (not more than owed)."""
        m = self._member(member_id)
        if amount <= 0 or amount > self.fines[m] + 1e-9:
            raise ToolInputError(f"amount must be between 0 and the {self.fines[m]:.2f} owed")
        self.fines[m] = round(self.fines[m] - amount, 2)
        self.payments.append((m, amount))
        return f"paid {amount:.2f}; {m} now owes {self.fines[m]:.2f}"

    def place_hold(self, member_id: str, book_id: str) -> str:
        """Reserve a book for a member: they are told when a copy comes back."""
        m = self._member(member_id)
        book = self._book(book_id)
        self.holds.append((m, book_id.strip().upper()))
        return f"hold placed on {book['title']} for {m}"

    def tools(self) -> list[FunctionTool]:
        return [
            FunctionTool(self.search_books, read_only=True),
            FunctionTool(self.member_loans, read_only=True),
            FunctionTool(self.borrow_book),
            FunctionTool(self.return_book),
            FunctionTool(self.member_fines, read_only=True),
            FunctionTool(self.pay_fine),
            FunctionTool(self.place_hold),
        ]


def check_borrow_brennan(w: Library, answer: str) -> Verdict:
    ok = ("M-204", "B-17") in w.loans and len(w.loans) == 2
    return Verdict(ok, f"loans: {sorted(w.loans)}")


def check_return_pay(w: Library, answer: str) -> Verdict:
    paid = round(sum(a for m, a in w.payments if m == "M-118"), 2)
    ok = ("M-118", "B-11") in w.returned and w.fines["M-118"] == 0 and paid == 3.75
    return Verdict(ok, f"returned {w.returned}, paid {paid}, still owes {w.fines['M-118']}")


def check_hold_winter(w: Library, answer: str) -> Verdict:
    ok = ("M-330", "B-23") in w.holds and ("M-330", "B-23") not in w.loans
    return Verdict(ok, f"holds {w.holds}, loans {sorted(w.loans)}")


def check_copies(w: Library, answer: str) -> Verdict:
    ok = has_number(answer, 2) and len(w.loans) == 1 and not w.holds
    return Verdict(ok, f"answer: {answer[:120]!r}")


# --------------------------------------------------------------------------- pet clinic
SLOTS = ("09:00", "09:30", "10:00", "10:30", "11:00", "11:30", "14:00", "14:30", "15:00", "15:30")


class Clinic:
    """A vet's appointment book: pets, vaccination records, half-hour slots, reminders."""

    def __init__(self) -> None:
        self.pets = {
            "P-31": {"name": "Bella", "species": "dog", "owner": "Dana Reyes"},
            "P-32": {"name": "Milo", "species": "cat", "owner": "Dana Reyes"},
            "P-12": {"name": "Pip", "species": "rabbit", "owner": "Sam Okafor"},
            "P-40": {"name": "Luna", "species": "dog", "owner": "Kim Alvarez"},
            "P-44": {"name": "Ziggy", "species": "ferret", "owner": "Ana Lund"},
        }
        self.vaccinations = {
            "P-31": [("rabies", "2024-03-02"), ("distemper", "2025-01-15")],
            "P-32": [("rabies", "2025-02-20")],
            "P-12": [("myxomatosis", "2024-11-30")],
            "P-40": [("rabies", "2024-09-09")],
            "P-44": [],
        }
        self.appointments = {
            "A-5": {"pet_id": "P-12", "date": "2025-06-11", "time": "09:00", "reason": "checkup"},
            "A-7": {"pet_id": "P-32", "date": "2025-06-11", "time": "10:30", "reason": "dental"},
            "A-8": {"pet_id": "P-40", "date": "2025-06-11", "time": "15:00", "reason": "checkup"},
            "A-10": {"pet_id": "P-44", "date": "2025-06-12", "time": "09:00", "reason": "checkup"},
            "A-11": {"pet_id": "P-40", "date": "2025-06-12", "time": "09:30", "reason": "x-ray"},
            "A-12": {"pet_id": "P-44", "date": "2025-06-13", "time": "15:30", "reason": "follow-up"},
        }
        self.initial = {k: dict(v) for k, v in self.appointments.items()}
        self.reminders: list[str] = []
        self._next = 20

    def _pet(self, pet_id: str) -> str:
        key = pet_id.strip().upper()
        if key not in self.pets:
            raise ToolInputError(f"no pet {pet_id!r}; use find_pets with the owner's name")
        return key

    def _free(self, date: str) -> list[str]:
        taken = {a["time"] for a in self.appointments.values() if a["date"] == date.strip()}
        return [s for s in SLOTS if s not in taken]

    def find_pets(self, owner_name: str) -> list[dict]:
        """The pets registered to an owner (pet_id, name, species)."""
        want = _norm(owner_name)
        return [
            {"pet_id": pid, "name": p["name"], "species": p["species"], "owner": p["owner"]}
            for pid, p in self.pets.items()
            if want and (want in _norm(p["owner"]))
        ]

    def vaccination_record(self, pet_id: str) -> list[dict]:
        """Every vaccine a pet has had, with the date it was given (YYYY-MM-DD)."""
        return [{"vaccine": v, "date": d} for v, d in self.vaccinations[self._pet(pet_id)]]

    def free_slots(self, date: str) -> list[str]:
        """The free appointment times (HH:MM, earliest first) on a date (YYYY-MM-DD)."""
        return self._free(date)

    def book_appointment(self, pet_id: str, date: str, time: str, reason: str) -> dict:
        """Book a pet into a free slot; reason is e.g. checkup, vaccination, dental."""
        pid = self._pet(pet_id)
        if time.strip() not in self._free(date):
            raise ToolInputError(f"{time} on {date} is not free; see free_slots")
        aid = f"A-{self._next}"
        self._next += 1
        self.appointments[aid] = {"pet_id": pid, "date": date.strip(), "time": time.strip(), "reason": reason}
        return {"appointment_id": aid, **self.appointments[aid]}

    def appointments_on(self, date: str) -> list[dict]:
        """Every appointment on a date, with the pet and its owner."""
        return [
            {"appointment_id": aid, "time": a["time"], "pet": self.pets[a["pet_id"]]["name"],
             "owner": self.pets[a["pet_id"]]["owner"], "reason": a["reason"]}
            for aid, a in sorted(self.appointments.items(), key=lambda kv: kv[1]["time"])
            if a["date"] == date.strip()
        ]

    def pet_appointments(self, pet_id: str) -> list[dict]:
        """A pet's booked appointments."""
        pid = self._pet(pet_id)
        return [{"appointment_id": aid, **a} for aid, a in self.appointments.items() if a["pet_id"] == pid]

    def reschedule_appointment(self, appointment_id: str, date: str, time: str) -> dict:
        """Move an appointment to a free slot on another date/time."""
        aid = appointment_id.strip().upper()
        if aid not in self.appointments:
            raise ToolInputError(f"no appointment {appointment_id!r}")
        if time.strip() not in self._free(date):
            raise ToolInputError(f"{time} on {date} is not free; see free_slots")
        self.appointments[aid].update(date=date.strip(), time=time.strip())
        return {"appointment_id": aid, **self.appointments[aid]}

    def send_reminder(self, appointment_id: str) -> str:
        """Text the owner a reminder of one appointment."""
        aid = appointment_id.strip().upper()
        if aid not in self.appointments:
            raise ToolInputError(f"no appointment {appointment_id!r}")
        self.reminders.append(aid)
        owner = self.pets[self.appointments[aid]["pet_id"]]["owner"]
        return f"reminder sent to {owner}"

    def new_appointments(self) -> dict:
        return {k: v for k, v in self.appointments.items() if k not in self.initial}

    def tools(self) -> list[FunctionTool]:
        return [
            FunctionTool(self.find_pets, read_only=True),
            FunctionTool(self.vaccination_record, read_only=True),
            FunctionTool(self.free_slots, read_only=True),
            FunctionTool(self.book_appointment),
            FunctionTool(self.appointments_on, read_only=True),
            FunctionTool(self.pet_appointments, read_only=True),
            FunctionTool(self.reschedule_appointment),
            FunctionTool(self.send_reminder),
        ]


def check_bella_vaccine(w: Clinic, answer: str) -> Verdict:
    new = list(w.new_appointments().values())
    ok = (
        len(new) == 1
        and new[0]["pet_id"] == "P-31"
        and (new[0]["date"], new[0]["time"]) == ("2025-06-12", "10:00")
        and ("vaccin" in new[0]["reason"].lower() or "rabies" in new[0]["reason"].lower())
    )
    return Verdict(ok, f"new appointments: {new}")


def check_reminders(w: Clinic, answer: str) -> Verdict:
    ok = set(w.reminders) == {"A-5", "A-7", "A-8"}
    return Verdict(ok, f"reminders: {w.reminders}")


def check_move_milo(w: Clinic, answer: str) -> Verdict:
    a = w.appointments["A-7"]
    ok = (a["date"], a["time"]) == ("2025-06-13", "15:00") and not w.new_appointments()
    others = all(w.appointments[k] == v for k, v in w.initial.items() if k != "A-7")
    return Verdict(ok and others, f"A-7: {a}; new: {w.new_appointments()}")


def check_pip_checkup(w: Clinic, answer: str) -> Verdict:
    new = list(w.new_appointments().values())
    ok = (
        len(new) == 1
        and new[0]["pet_id"] == "P-12"
        and (new[0]["date"], new[0]["time"]) == ("2025-06-12", "11:00")
        and "check" in new[0]["reason"].lower()
    )
    return Verdict(ok, f"new appointments: {new}")


# --------------------------------------------------------------------------- warehouse
class Warehouse:
    """Stock in bins, unit prices, stock moves and outgoing shipments."""

    def __init__(self) -> None:
        self.bins = {
            "A-1": {"K-220": 6, "K-101": 4},
            "B-2": {"K-101": 12, "K-305": 5},
            "C-3": {"K-220": 14, "K-305": 2},
            "A-4": {"K-410": 12},
            "D-1": {"K-410": 9, "K-101": 30},
        }
        self.prices = {"K-101": 3.50, "K-220": 7.25, "K-305": 19.90, "K-410": 2.00}
        self.moves: list[tuple[str, str, str, int]] = []
        self.shipments: list[dict] = []

    def _bin(self, bin_id: str) -> dict:
        key = bin_id.strip().upper()
        if key not in self.bins:
            raise ToolInputError(f"no bin {bin_id!r}; bins are {', '.join(self.bins)}")
        return self.bins[key]

    def _sku(self, sku: str) -> str:
        key = sku.strip().upper()
        if key not in self.prices:
            raise ToolInputError(f"no SKU {sku!r}")
        return key

    def bin_contents(self, bin_id: str) -> dict:
        """What a bin holds: SKU -> units."""
        return {k: v for k, v in self._bin(bin_id).items() if v}

    def find_item(self, sku: str) -> dict:
        """Where an SKU is stocked: bin -> units, and the total."""
        key = self._sku(sku)
        where = {b: c[key] for b, c in self.bins.items() if c.get(key)}
        return {"sku": key, "bins": where, "total": sum(where.values())}

    def item_price(self, sku: str) -> dict:
        """The unit price of an SKU in euros."""
        key = self._sku(sku)
        return {"sku": key, "unit_price_eur": self.prices[key]}

    def move_stock(self, sku: str, from_bin: str, to_bin: str, quantity: int) -> str:
        """Move `quantity` units of an SKU from one bin to another."""
        key = self._sku(sku)
        src, dst = self._bin(from_bin), self._bin(to_bin)
        if quantity < 1 or src.get(key, 0) < quantity:
            raise ToolInputError(f"{from_bin} holds {src.get(key, 0)} of {key}")
        src[key] -= quantity
        dst[key] = dst.get(key, 0) + quantity
        self.moves.append((key, from_bin, to_bin, quantity))
        return f"moved {quantity} {key} from {from_bin} to {to_bin}"

    def create_shipment(self, destination: str, sku: str, quantity: int) -> dict:
        """Ship `quantity` units of an SKU to a destination, picked from whichever bins hold it."""
        key = self._sku(sku)
        total = sum(c.get(key, 0) for c in self.bins.values())
        if quantity < 1 or quantity > total:
            raise ToolInputError(f"only {total} units of {key} in stock")
        left = quantity
        for c in self.bins.values():
            take = min(left, c.get(key, 0))
            if take:
                c[key] -= take
                left -= take
        shipment = {"shipment_id": f"S-{len(self.shipments) + 1}", "destination": destination,
                    "sku": key, "quantity": quantity}
        self.shipments.append(shipment)
        return shipment

    def tools(self) -> list[FunctionTool]:
        return [
            FunctionTool(self.bin_contents, read_only=True),
            FunctionTool(self.find_item, read_only=True),
            FunctionTool(self.item_price, read_only=True),
            FunctionTool(self.move_stock),
            FunctionTool(self.create_shipment),
        ]


def check_consolidate(w: Warehouse, answer: str) -> Verdict:
    ok = w.bins["C-3"].get("K-220", 0) == 0 and w.bins["A-1"].get("K-220") == 20
    ok = ok and w.bins["C-3"].get("K-305") == 2
    return Verdict(ok, f"C-3 {w.bins['C-3']}, A-1 {w.bins['A-1']}")


def check_bin_value(w: Warehouse, answer: str) -> Verdict:
    ok = has_number(answer, 141.5) and not w.moves and not w.shipments
    return Verdict(ok, f"answer: {answer[:160]!r}")


def check_ship_short(w: Warehouse, answer: str) -> Verdict:
    sent = sum(s["quantity"] for s in w.shipments
               if s["sku"] == "K-410" and "rotterdam" in s["destination"].lower())
    ok = sent == 21 and len(w.shipments) >= 1 and has_number(answer, 9)
    return Verdict(ok, f"shipped {sent} K-410; answer: {answer[:120]!r}")


# --------------------------------------------------------------------------- home
class Home:
    """A smart home: room temperatures, thermostats and switchable devices."""

    def __init__(self) -> None:
        self.temperatures = {"livingroom": 19.0, "bedroom": 18.5, "office": 20.5, "garage": 3.5,
                             "kitchen": 21.0, "porch": 9.0}
        self.thermostats = {"livingroom": 20.0, "bedroom": 20.0, "office": 20.0}
        self.devices = {
            "garage": {"heater": False, "workbench lamp": True},
            "porch": {"porch light": False},
            "kitchen": {"kettle": False, "dishwasher": True},
            "livingroom": {"tv": False, "floor lamp": True},
        }

    def _room(self, room: str) -> str:
        key = _norm(room)
        if key not in self.temperatures:
            raise ToolInputError(f"no room {room!r}; rooms: living room, bedroom, office, garage, kitchen, porch")
        return key

    def get_temperature(self, room: str) -> dict:
        """The current temperature of a room in °C."""
        return {"room": room, "celsius": self.temperatures[self._room(room)]}

    def set_thermostat(self, room: str, celsius: float) -> str:
        """Set a room's thermostat target in °C (living room, bedroom, office)."""
        key = self._room(room)
        if key not in self.thermostats:
            raise ToolInputError(f"{room} has no thermostat")
        self.thermostats[key] = float(celsius)
        return f"{room} thermostat set to {celsius} °C"

    def list_devices(self, room: str) -> list[dict]:
        """The switchable devices in a room and whether each is on."""
        return [{"device": d, "on": on} for d, on in self.devices.get(self._room(room), {}).items()]

    def switch_device(self, room: str, device: str, on: bool) -> str:
        """Switch a device in a room on (on=true) or off (on=false)."""
        key = self._room(room)
        devices = self.devices.get(key, {})
        want = _norm(device)
        match = [d for d in devices if _norm(d) == want] or [
            d for d in devices if want and (want in _norm(d) or _norm(d) in want)
        ]
        if len(match) != 1:
            raise ToolInputError(f"no device {device!r} in {room}; see list_devices")
        devices[match[0]] = bool(on)
        return f"{match[0]} in {room} is now {'on' if on else 'off'}"

    def tools(self) -> list[FunctionTool]:
        return [
            FunctionTool(self.get_temperature, read_only=True),
            FunctionTool(self.set_thermostat),
            FunctionTool(self.list_devices, read_only=True),
            FunctionTool(self.switch_device),
        ]


def check_thermostats(w: Home, answer: str) -> Verdict:
    ok = w.thermostats == {"livingroom": 21.0, "bedroom": 18.0, "office": 19.5}
    return Verdict(ok, f"thermostats: {w.thermostats}")


def check_garage(w: Home, answer: str) -> Verdict:
    ok = w.devices["garage"] == {"heater": True, "workbench lamp": True}
    return Verdict(ok, f"garage: {w.devices['garage']}")


def check_porch(w: Home, answer: str) -> Verdict:
    ok = w.devices["porch"]["porch light"] is True and w.devices["garage"]["heater"] is False
    return Verdict(ok, f"porch: {w.devices['porch']}")


# --------------------------------------------------------------------------- missions
MISSIONS = [
    Mission(
        "lib-borrow-brennan",
        "Borrow the book by Ursula Brennan for library member M-204.",
        Library,
        check_borrow_brennan,
        reference=(
            call("search_books", query="Ursula Brennan"),
            call("borrow_book", member_id="M-204", book_id="B-17"),
            reply("Lanterns at Low Tide is lent to M-204, due 2025-07-01."),
        ),
        tags=("chain",),
    ),
    Mission(
        "lib-return-and-pay",
        "Member M-118 is bringing back The Salt Road. Process the return, then pay off "
        "everything that member owes in fines.",
        Library,
        check_return_pay,
        reference=(
            call("member_loans", member_id="M-118"),
            call("return_book", member_id="M-118", book_id="B-11"),
            call("member_fines", member_id="M-118"),
            call("pay_fine", member_id="M-118", amount=3.75),
            reply("Returned; 3.75 in fines paid, M-118 owes nothing now."),
        ),
        tags=("chain", "arithmetic"),
    ),
    Mission(
        "lib-winter-orchard",
        "If Winter Orchard has a copy available, borrow it for member M-330; "
        "if not, place a hold on it for M-330.",
        Library,
        check_hold_winter,
        reference=(
            call("search_books", query="Winter Orchard"),
            call("place_hold", member_id="M-330", book_id="B-23"),
            reply("No copy was available, so I placed a hold for M-330."),
        ),
        tags=("conditional",),
    ),
    Mission(
        "clinic-bella-vaccine",
        "Dana Reyes's dog Bella needs a visit. Look up her vaccination record: if her last "
        "rabies shot was more than a year before today (2025-06-10), book her a vaccination "
        "at the first free slot on 2025-06-12; otherwise book a checkup at that slot.",
        Clinic,
        check_bella_vaccine,
        reference=(
            call("find_pets", owner_name="Dana Reyes"),
            call("vaccination_record", pet_id="P-31"),
            call("free_slots", date="2025-06-12"),
            call("book_appointment", pet_id="P-31", date="2025-06-12", time="10:00", reason="vaccination"),
            reply("Bella's rabies shot is from 2024-03-02, so she is booked for a vaccination on 2025-06-12 at 10:00."),
        ),
        tags=("conditional", "chain"),
    ),
    Mission(
        "clinic-reminders-0611",
        "Send a reminder for every appointment on 2025-06-11.",
        Clinic,
        check_reminders,
        reference=(
            call("appointments_on", date="2025-06-11"),
            call("send_reminder", appointment_id="A-5"),
            call("send_reminder", appointment_id="A-7"),
            call("send_reminder", appointment_id="A-8"),
            reply("Reminders sent for A-5, A-7 and A-8."),
        ),
        tags=("fan-out",),
    ),
    Mission(
        "clinic-move-milo",
        "Dana Reyes's cat Milo has an appointment on 2025-06-11. Move it to the latest free "
        "slot on 2025-06-13.",
        Clinic,
        check_move_milo,
        reference=(
            call("find_pets", owner_name="Dana Reyes"),
            call("pet_appointments", pet_id="P-32"),
            call("free_slots", date="2025-06-13"),
            call("reschedule_appointment", appointment_id="A-7", date="2025-06-13", time="15:00"),
            reply("Milo's appointment is now on 2025-06-13 at 15:00."),
        ),
        tags=("chain",),
    ),
    Mission(
        "wh-consolidate-k220",
        "Move all the K-220 stock in bin C-3 over to bin A-1.",
        Warehouse,
        check_consolidate,
        reference=(
            call("bin_contents", bin_id="C-3"),
            call("move_stock", sku="K-220", from_bin="C-3", to_bin="A-1", quantity=14),
            reply("Moved 14 K-220 from C-3 to A-1."),
        ),
        tags=("chain",),
    ),
    Mission(
        "wh-bin-b2-value",
        "What is the total value of the stock in bin B-2, in euros?",
        Warehouse,
        check_bin_value,
        reference=(
            call("bin_contents", bin_id="B-2"),
            call("item_price", sku="K-101"),
            call("item_price", sku="K-305"),
            reply("12 x 3.50 + 5 x 19.90 = 141.50 euros."),
        ),
        tags=("arithmetic", "fan-out"),
    ),
    Mission(
        "wh-ship-k410-short",
        "Ship 30 units of K-410 to Rotterdam. If the warehouse doesn't have 30, ship all it "
        "has and tell me how many units we are short.",
        Warehouse,
        check_ship_short,
        reference=(
            call("find_item", sku="K-410"),
            call("create_shipment", destination="Rotterdam", sku="K-410", quantity=21),
            reply("Only 21 in stock: shipped 21 to Rotterdam, 9 units short."),
        ),
        tags=("conditional", "arithmetic"),
    ),
    Mission(
        "home-three-thermostats",
        "Set the thermostats: living room to 21 °C, bedroom to 18 °C and office to 19.5 °C.",
        Home,
        check_thermostats,
        reference=(
            call("set_thermostat", room="living room", celsius=21),
            call("set_thermostat", room="bedroom", celsius=18),
            call("set_thermostat", room="office", celsius=19.5),
            reply("Living room 21 °C, bedroom 18 °C, office 19.5 °C."),
        ),
        tags=("fan-out",),
    ),
    Mission(
        "home-garage-cold",
        "Check the garage temperature. If it is below 5 °C, switch on the garage heater; "
        "otherwise switch off everything in the garage that is on.",
        Home,
        check_garage,
        reference=(
            call("get_temperature", room="garage"),
            call("switch_device", room="garage", device="heater", on=True),
            reply("The garage is 3.5 °C, so I switched the heater on."),
        ),
        tags=("conditional",),
    ),
    # single-step
    Mission(
        "lib-salt-road-copies",
        "How many copies of The Salt Road are available to borrow right now?",
        Library,
        check_copies,
        reference=(
            call("search_books", query="The Salt Road"),
            reply("2 copies of The Salt Road are available."),
        ),
        tags=("single",),
    ),
    Mission(
        "clinic-book-pip",
        "Book a checkup for pet P-12 on 2025-06-12 at 11:00.",
        Clinic,
        check_pip_checkup,
        reference=(
            call("book_appointment", pet_id="P-12", date="2025-06-12", time="11:00", reason="checkup"),
            reply("Pip is booked for a checkup on 2025-06-12 at 11:00."),
        ),
        tags=("single",),
    ),
    Mission(
        "home-porch-light",
        "Turn on the porch light.",
        Home,
        check_porch,
        reference=(
            call("switch_device", room="porch", device="porch light", on=True),
            reply("The porch light is on."),
        ),
        tags=("single",),
    ),
]

SUITE = Suite("errands", tuple(MISSIONS), description="14 user-written errands over 4 new worlds")
