"""counters: 16 missions over four small stateful worlds (hotel, pharmacy, car share, cinema).

Written as a new user of `taskforce eval`, from the README alone; none of these tools exist in
taskforce itself. Today is Wednesday 2025-10-15 in every world (tomorrow is Thursday 10-16,
Friday is 10-17, Saturday 10-18); the tools that take dates say so in their descriptions.
12 missions take several steps (chains, conditions, fan-out, arithmetic on looked-up values)
and 4 are single-step. Every checker reads the world (and the answer's figure, for questions)
and refuses the wrong branch, half a fan-out, extra changes and a wrong figure.
"""

from __future__ import annotations

import copy
import datetime as dt
import re
from typing import Any

from taskforce.errors import ToolInputError
from taskforce.evals import Mission, Suite, Verdict
from taskforce.evals.mission import has_number
from taskforce.testing import call, reply
from taskforce.tools import FunctionTool

TODAY = "2025-10-15"
TODAY_TEXT = "Wednesday 2025-10-15"


def _norm(text: object) -> str:
    return re.sub(r"[^a-z0-9]", "", str(text).lower())


def _key(text: object) -> str:
    return str(text).strip().upper().replace(" ", "")


def _date(text: str, what: str = "date") -> str:
    value = str(text).strip()
    try:
        return dt.date.fromisoformat(value).isoformat()
    except ValueError:
        raise ToolInputError(
            f"{what} {text!r} must be a date like 2025-10-16 (today is {TODAY_TEXT})"
        ) from None


def _weekday(date: str) -> str:
    return dt.date.fromisoformat(date[:10]).strftime("%A")


_CLOCK = re.compile(r"^(\d{1,2})(?:[:.h](\d{2}))?(?::00)?\s*(am|pm|a\.m\.|p\.m\.)?$", re.IGNORECASE)


def _clock(text: str, what: str = "time") -> str:
    match = _CLOCK.match(str(text).strip())
    if not match:
        raise ToolInputError(f"{what} {text!r} must be a time like 13:00")
    hour, minute = int(match.group(1)), int(match.group(2) or 0)
    half = (match.group(3) or "").lower().replace(".", "")
    if half == "pm" and hour < 12:
        hour += 12
    if half == "am" and hour == 12:
        hour = 0
    if hour > 23 or minute > 59:
        raise ToolInputError(f"{what} {text!r} is not a time of day")
    return f"{hour:02d}:{minute:02d}"


def _moment(text: str, what: str) -> str:
    """'2025-10-16 18:00' (a 'T' or an am/pm time is accepted too)."""
    parts = re.split(r"[T\s]+", str(text).strip(), maxsplit=1)
    if len(parts) != 2:
        raise ToolInputError(
            f"{what} {text!r} must be a date and time like '2025-10-16 18:00' "
            f"(today is {TODAY_TEXT})"
        )
    return f"{_date(parts[0], what)} {_clock(parts[1], what)}"


# --------------------------------------------------------------------------- hotel
ROOMS = {
    "101": ("single", 1),
    "102": ("double", 1),
    "103": ("double", 1),
    "201": ("double", 2),
    "202": ("suite", 2),
    "203": ("suite", 2),
    "204": ("double", 2),
    "205": ("double", 2),
    "301": ("suite", 3),
    "302": ("single", 3),
    "303": ("double", 3),
    "305": ("suite", 3),
}
RATES = {"single": 95.0, "double": 130.0, "suite": 260.0}


class Hotel:
    """A hotel front desk: rooms, reservations, loyalty tiers, late checkouts and bills."""

    def __init__(self) -> None:
        self.tiers = {
            "Priya Nair": "silver",
            "Tom Becker": "none",
            "Ana Lima": "gold",
            "Ben Carter": "none",
            "Carla Diaz": "gold",
            "Jonas Berg": "none",
            "Mia Schultz": "silver",
        }
        self.reservations: dict[str, dict[str, Any]] = {
            "R-1039": self._res("Mia Schultz", "301", "2025-10-14", "2025-10-16", "checked in"),
            "R-1040": self._res("Tom Becker", "204", "2025-10-13", "2025-10-17", "checked in"),
            "R-1041": self._res("Priya Nair", "201", "2025-10-14", "2025-10-16", "checked in"),
            "R-1042": self._res("Jonas Berg", "102", "2025-10-15", "2025-10-18", "checked in"),
            "R-1043": self._res("Ana Lima", "103", "2025-10-15", "2025-10-17", "checked in"),
            "R-1044": self._res("Ben Carter", "303", "2025-10-15", "2025-10-17", "checked in"),
            "R-1045": self._res("Carla Diaz", "202", "2025-10-16", "2025-10-19", "booked"),
            "R-1046": self._res("Tom Becker", "205", "2025-11-20", "2025-11-22", "booked"),
        }
        self.reservations["R-1041"]["rate"] = 140.0  # a sea-view double
        self.extras: dict[str, list[tuple[str, float]]] = {r: [] for r in self.reservations}
        self.extras["R-1040"].append(("Minibar", 14.50))
        self.extras["R-1041"].append(("Spa treatment", 65.00))
        self.initial = copy.deepcopy((self.reservations, self.extras))

    @staticmethod
    def _res(guest: str, room: str, check_in: str, check_out: str, status: str) -> dict[str, Any]:
        return {
            "guest": guest,
            "room": room,
            "check_in": check_in,
            "check_out": check_out,
            "rate": RATES[ROOMS[room][0]],
            "status": status,
            "late_checkout": None,
        }

    def _reservation(self, reservation_id: str) -> str:
        key = _key(reservation_id)
        if key not in self.reservations:
            raise ToolInputError(
                f"no reservation {reservation_id!r}; use find_reservation with the guest's name"
            )
        return key

    def _free(self, room: str, check_in: str, check_out: str, ignore: str = "") -> bool:
        return not any(
            r["room"] == room and r["check_in"] < check_out and check_in < r["check_out"]
            for rid, r in self.reservations.items()
            if rid != ignore and r["status"] != "cancelled"
        )

    def find_reservation(self, guest_name: str) -> list[dict]:
        """A guest's reservations (id, room, dates, status) and loyalty tier (none/silver/gold)."""
        want = _norm(guest_name)
        hits = [
            {
                "reservation_id": rid,
                "guest": r["guest"],
                "loyalty_tier": self.tiers[r["guest"]],
                "room": r["room"],
                "room_type": ROOMS[r["room"]][0],
                "check_in": r["check_in"],
                "check_out": r["check_out"],
                "nightly_rate": r["rate"],
                "status": r["status"],
                "late_checkout": r["late_checkout"],
            }
            for rid, r in self.reservations.items()
            if want and want in _norm(r["guest"])
        ]
        if not hits:
            raise ToolInputError(f"no reservation for a guest named {guest_name!r}")
        return hits

    def available_rooms(self, room_type: str, check_in: str, check_out: str) -> list[dict]:
        """The rooms of a type (single, double or suite) free for every night of a stay.

        Args:
            room_type: single, double or suite.
            check_in: Arrival date, YYYY-MM-DD (today is Wednesday 2025-10-15).
            check_out: Departure date, YYYY-MM-DD.
        """
        kind = room_type.strip().lower().rstrip("s")
        if kind not in RATES:
            raise ToolInputError(f"room_type must be single, double or suite, not {room_type!r}")
        start, end = _date(check_in, "check_in"), _date(check_out, "check_out")
        if start >= end:
            raise ToolInputError("check_out must be after check_in")
        return [
            {"room": room, "type": t, "floor": floor, "nightly_rate": RATES[t]}
            for room, (t, floor) in ROOMS.items()
            if t == kind and self._free(room, start, end)
        ]

    def get_invoice(self, reservation_id: str) -> dict:
        """A reservation's bill so far: the room charges, each extra, and the total."""
        rid = self._reservation(reservation_id)
        r = self.reservations[rid]
        nights = (dt.date.fromisoformat(r["check_out"]) - dt.date.fromisoformat(r["check_in"])).days
        lines = [
            {
                "item": f"Room {r['room']}: {nights} nights x {r['rate']:.2f}",
                "amount": round(nights * r["rate"], 2),
            }
        ]
        lines += [{"item": what, "amount": amount} for what, amount in self.extras[rid]]
        total = round(sum(line["amount"] for line in lines), 2)
        return {"reservation_id": rid, "guest": r["guest"], "lines": lines, "total": total}

    def move_room(self, reservation_id: str, room: str) -> str:
        """Move a reservation to another room that is free for its dates (the rate stays)."""
        rid = self._reservation(reservation_id)
        digits = re.findall(r"\d+", str(room))
        target = digits[0] if len(digits) == 1 else str(room).strip()
        if target not in ROOMS:
            raise ToolInputError(f"no room {room!r}; see available_rooms")
        r = self.reservations[rid]
        if r["room"] == target:
            raise ToolInputError(f"{rid} is already in room {target}")
        if not self._free(target, r["check_in"], r["check_out"], ignore=rid):
            raise ToolInputError(
                f"room {target} is not free from {r['check_in']} to {r['check_out']}; "
                "see available_rooms"
            )
        old, r["room"] = r["room"], target
        return f"{r['guest']} ({rid}) moved from room {old} to room {target}"

    def set_late_checkout(self, reservation_id: str, until: str) -> str:
        """Let a guest leave later than 11:00 on their checkout day.

        Args:
            reservation_id: The reservation, e.g. R-1000.
            until: The new checkout time, HH:MM (between 11:30 and 18:00).
        """
        rid = self._reservation(reservation_id)
        time = _clock(until, "until")
        if not "11:30" <= time <= "18:00":
            raise ToolInputError("a late checkout must be between 11:30 and 18:00")
        self.reservations[rid]["late_checkout"] = time
        r = self.reservations[rid]
        return f"{r['guest']} ({rid}) may check out at {time} on {r['check_out']}"

    def add_charge(self, reservation_id: str, description: str, amount: float) -> str:
        """Put a charge on a reservation's bill, in euros; a negative amount is a credit."""
        rid = self._reservation(reservation_id)
        if not amount or abs(amount) > 10_000:
            raise ToolInputError("amount must be a non-zero number of euros")
        if not str(description).strip():
            raise ToolInputError("describe the charge, e.g. 'Minibar'")
        self.extras[rid].append((str(description).strip(), round(float(amount), 2)))
        total = self.get_invoice(rid)["total"]
        return f"{amount:.2f} ({description}) added to {rid}; the bill is now {total:.2f}"

    def tools(self) -> list[FunctionTool]:
        """The front desk's tools."""
        return [
            FunctionTool(self.find_reservation, read_only=True),
            FunctionTool(self.available_rooms, read_only=True),
            FunctionTool(self.get_invoice, read_only=True),
            FunctionTool(self.move_room),
            FunctionTool(self.set_late_checkout),
            FunctionTool(self.add_charge),
        ]


def _hotel_changes(w: Hotel) -> tuple[dict[str, dict], dict[str, list[float]]]:
    """The reservations that changed (field -> new value) and the charges added to each bill."""
    reservations, extras = w.initial
    changed = {}
    for rid, r in w.reservations.items():
        diff = {k: v for k, v in r.items() if reservations[rid].get(k) != v}
        if diff:
            changed[rid] = diff
    added = {}
    for rid, lines in w.extras.items():
        before = extras[rid]
        if lines != before:
            kept = lines[: len(before)] == before
            added[rid] = [a for _, a in lines[len(before) :]] if kept else [float("nan")]
    return changed, added


def _amounts(added: dict[str, list[float]], rid: str, *want: float) -> bool:
    got = added.get(rid, [])
    return len(got) == len(want) and all(abs(g - x) < 0.011 for g, x in zip(got, want, strict=True))


def check_late_checkout(w: Hotel, answer: str) -> Verdict:
    """Priya (silver) gets 13:00 and the 30 euro fee on her bill, nothing else."""
    changed, added = _hotel_changes(w)
    ok = (
        changed == {"R-1041": {"late_checkout": "13:00"}}
        and set(added) == {"R-1041"}
        and _amounts(added, "R-1041", 30)
    )
    return Verdict(ok, f"changed {changed}; charges added {added}")


def check_suites(w: Hotel, answer: str) -> Verdict:
    """Ana and Ben are each in one of the two free suites; nothing else moved or billed."""
    changed, added = _hotel_changes(w)
    rooms = {rid: c.get("room") for rid, c in changed.items()}
    ok = (
        set(changed) == {"R-1043", "R-1044"}
        and all(set(c) == {"room"} for c in changed.values())
        and set(rooms.values()) == {"203", "305"}
        and not added
    )
    return Verdict(ok, f"changed {changed}; charges added {added}")


def check_shower_credit(w: Hotel, answer: str) -> Verdict:
    """A single credit of 78 (15% of 4 x 130) on Tom's current stay, nothing else."""
    changed, added = _hotel_changes(w)
    ok = not changed and set(added) == {"R-1040"} and _amounts(added, "R-1040", -78)
    return Verdict(ok, f"changed {changed}; charges added {added}")


def check_minibar(w: Hotel, answer: str) -> Verdict:
    """12.50 on R-1042's bill, nothing else."""
    changed, added = _hotel_changes(w)
    ok = not changed and set(added) == {"R-1042"} and _amounts(added, "R-1042", 12.5)
    return Verdict(ok, f"changed {changed}; charges added {added}")


# --------------------------------------------------------------------------- pharmacy
PLANS = {
    "none": "no insurance: the patient pays the full price",
    "basic": "the patient pays 20% of the price",
    "plus": "the patient pays a flat 5.00 per fill",
}


class Pharmacy:
    """A pharmacy counter: patients, prescriptions with refills, stock, fills and pickups."""

    def __init__(self) -> None:
        self.patients = {
            "PT-201": {"name": "Marta Silva", "insurance": "plus"},
            "PT-202": {"name": "George Park", "insurance": "basic"},
            "PT-203": {"name": "Lena Wolf", "insurance": "none"},
            "PT-204": {"name": "Omar Haddad", "insurance": "basic"},
        }
        self.stock: dict[str, dict[str, Any]] = {
            "sertraline": {"strength": "50 mg", "on_hand": 84, "unit_price": 0.40},
            "metformin": {"strength": "500 mg", "on_hand": 200, "unit_price": 0.08},
            "lisinopril": {"strength": "10 mg", "on_hand": 75, "unit_price": 0.15},
            "atorvastatin": {"strength": "20 mg", "on_hand": 45, "unit_price": 1.25},
            "ibuprofen": {"strength": "400 mg", "on_hand": 96, "unit_price": 0.10},
            "amoxicillin": {"strength": "500 mg", "on_hand": 14, "unit_price": 0.30},
        }
        self.prescriptions: dict[str, dict[str, Any]] = {
            "RX-501": self._rx("PT-201", "sertraline", 30, 1, "on file", "2025-09-16"),
            "RX-502": self._rx("PT-201", "metformin", 60, 3, "on file", "2025-09-30"),
            "RX-503": self._rx("PT-202", "lisinopril", 30, 2, "on file", "2025-09-14"),
            "RX-504": self._rx("PT-203", "lisinopril", 30, 5, "on file", "2025-09-12"),
            "RX-505": self._rx("PT-203", "amoxicillin", 21, 0, "on file", "2025-10-01"),
            "RX-506": self._rx("PT-204", "atorvastatin", 30, 4, "on file", "2025-09-15"),
            "RX-507": self._rx("PT-204", "metformin", 60, 2, "ready for pickup", "2025-10-14"),
            "RX-508": self._rx("PT-202", "atorvastatin", 30, 1, "ready for pickup", "2025-10-14"),
        }
        self.fills: list[str] = []
        self.renewals: list[str] = []
        self.pickups: list[tuple[str, float]] = []
        self.orders: list[tuple[str, int]] = []
        self.initial = copy.deepcopy((self.prescriptions, self.stock))

    @staticmethod
    def _rx(patient: str, drug: str, qty: int, refills: int, status: str, last: str) -> dict:
        return {
            "patient": patient,
            "drug": drug,
            "quantity": qty,
            "refills_left": refills,
            "status": status,
            "last_filled": last,
        }

    def _rx_id(self, rx_id: str) -> str:
        key = _key(rx_id)
        if re.fullmatch(r"RX\d+", key):
            key = "RX-" + key[2:]
        if key not in self.prescriptions:
            raise ToolInputError(f"no prescription {rx_id!r}; use find_patient to see a patient's")
        return key

    def _drug(self, drug: str) -> str:
        words = [w for w in re.split(r"[^a-z]+", str(drug).lower()) if w]
        hits = [d for d in self.stock if d in words]
        if len(hits) != 1:
            raise ToolInputError(f"no drug {drug!r} in stock; we stock {', '.join(self.stock)}")
        return hits[0]

    def find_patient(self, name: str) -> dict:
        """A patient by name: insurance plan, what they pay under it, and their prescriptions."""
        want = _norm(name)
        for pid, p in self.patients.items():
            if want and want in _norm(p["name"]):
                return {
                    "patient_id": pid,
                    "name": p["name"],
                    "insurance": p["insurance"],
                    "copay_rule": PLANS[p["insurance"]],
                    "prescriptions": [
                        {
                            "rx_id": rx,
                            "drug": f"{r['drug']} {self.stock[r['drug']]['strength']}",
                            "quantity": r["quantity"],
                            "refills_left": r["refills_left"],
                            "status": r["status"],
                            "last_filled": r["last_filled"],
                        }
                        for rx, r in self.prescriptions.items()
                        if r["patient"] == pid
                    ],
                }
        raise ToolInputError(f"no patient named {name!r}")

    def check_stock(self, drug: str) -> dict:
        """How many tablets of a drug are on the shelf, and its price per tablet in euros."""
        d = self._drug(drug)
        return {"drug": d, **self.stock[d]}

    def fill_prescription(self, rx_id: str) -> str:
        """Fill a prescription from stock (uses one refill); it then waits for pickup."""
        rx = self._rx_id(rx_id)
        r = self.prescriptions[rx]
        if r["status"] == "ready for pickup":
            raise ToolInputError(f"{rx} is already filled and waiting for pickup")
        if r["refills_left"] < 1:
            raise ToolInputError(f"{rx} has no refills left; request a renewal from the doctor")
        shelf = self.stock[r["drug"]]
        if shelf["on_hand"] < r["quantity"]:
            raise ToolInputError(
                f"only {shelf['on_hand']} {r['drug']} on hand, {r['quantity']} needed"
            )
        shelf["on_hand"] -= r["quantity"]
        r["refills_left"] -= 1
        r["status"] = "ready for pickup"
        r["last_filled"] = TODAY
        self.fills.append(rx)
        return f"{rx} filled: {r['quantity']} {r['drug']}; {r['refills_left']} refills left"

    def request_renewal(self, rx_id: str) -> str:
        """Ask the prescribing doctor to renew a prescription (more refills)."""
        rx = self._rx_id(rx_id)
        self.renewals.append(rx)
        return f"renewal request for {rx} sent to the prescriber"

    def record_pickup(self, rx_id: str, amount_paid: float) -> str:
        """Hand a filled prescription to the patient and record what they paid, in euros."""
        rx = self._rx_id(rx_id)
        r = self.prescriptions[rx]
        if r["status"] != "ready for pickup":
            raise ToolInputError(f"{rx} is not filled; fill it before it can be picked up")
        if amount_paid < 0:
            raise ToolInputError("amount_paid cannot be negative")
        r["status"] = "picked up"
        self.pickups.append((rx, round(float(amount_paid), 2)))
        return f"{rx} picked up, {amount_paid:.2f} paid"

    def order_stock(self, drug: str, quantity: int) -> str:
        """Order tablets of a drug from the wholesaler (they arrive tomorrow)."""
        d = self._drug(drug)
        if quantity < 1:
            raise ToolInputError("quantity must be at least 1")
        self.orders.append((d, quantity))
        return f"ordered {quantity} {d}"

    def tools(self) -> list[FunctionTool]:
        """The counter's tools."""
        return [
            FunctionTool(self.find_patient, read_only=True),
            FunctionTool(self.check_stock, read_only=True),
            FunctionTool(self.fill_prescription),
            FunctionTool(self.request_renewal),
            FunctionTool(self.record_pickup),
            FunctionTool(self.order_stock),
        ]


def _pharmacy_log(w: Pharmacy) -> str:
    return f"fills {w.fills}, renewals {w.renewals}, pickups {w.pickups}, orders {w.orders}"


def check_sertraline(w: Pharmacy, answer: str) -> Verdict:
    """RX-501 filled once and (its last refill used) a renewal asked for it; nothing else."""
    ok = w.fills == ["RX-501"] and set(w.renewals) == {"RX-501"} and not w.pickups and not w.orders
    return Verdict(ok, _pharmacy_log(w))


def check_three_fills(w: Pharmacy, answer: str) -> Verdict:
    """George's and Lena's lisinopril and Omar's atorvastatin filled; nothing else."""
    ok = (
        sorted(w.fills) == ["RX-503", "RX-504", "RX-506"]
        and not w.renewals
        and not w.pickups
        and not w.orders
    )
    return Verdict(ok, _pharmacy_log(w))


def check_copay(w: Pharmacy, answer: str) -> Verdict:
    """RX-508 picked up for 20% of 30 x 1.25 = 7.50, and the answer says 7.50."""
    ok = (
        len(w.pickups) == 1
        and w.pickups[0][0] == "RX-508"
        and abs(w.pickups[0][1] - 7.5) < 0.011
        and not w.fills
        and not w.renewals
        and not w.orders
        and has_number(answer, 7.5)
    )
    return Verdict(ok, f"{_pharmacy_log(w)}; answer {answer[:120]!r}")


def check_ibuprofen(w: Pharmacy, answer: str) -> Verdict:
    """The answer says 96 and nothing was done."""
    ok = has_number(answer, 96) and not (w.fills or w.renewals or w.pickups or w.orders)
    return Verdict(ok, f"{_pharmacy_log(w)}; answer {answer[:120]!r}")


# --------------------------------------------------------------------------- car share
def _car(model: str, kind: str, station: str, level: int, rate: float, flag: str = "") -> dict:
    return {
        "model": model,
        "kind": kind,
        "station": station,
        "level": level,
        "hourly_rate": rate,
        "flag": flag,
    }


class CarShare:
    """A car-share fleet: cars at stations, their charge or fuel, bookings and repair flags."""

    def __init__(self) -> None:
        self.cars = {
            "C-01": _car("Renault Zoe", "electric", "Central Station", 78, 9.00),
            "C-02": _car("VW Polo", "petrol", "Central Station", 60, 7.50),
            "C-03": _car("Renault Zoe", "electric", "Harbour", 85, 9.00),
            "C-04": _car("Fiat 500e", "electric", "Central Station", 40, 6.50, "brake noise"),
            "C-05": _car("Toyota Yaris", "petrol", "Old Town", 30, 7.50),
            "C-06": _car("Toyota Yaris", "petrol", "Central Station", 55, 8.00),
            "C-07": _car("Fiat 500e", "electric", "Harbour", 22, 8.50),
            "C-09": _car("Tesla Model 3", "electric", "Harbour", 95, 14.00, "cracked windscreen"),
            "C-11": _car("Renault Zoe", "electric", "Harbour", 64, 9.00),
            "C-12": _car("VW ID.3", "electric", "Old Town", 70, 11.00),
        }
        self.members = ("Ana Lima", "Ben Carter", "Carla Diaz", "Dev Patel", "Ines Duarte")
        self.bookings: dict[str, dict[str, str]] = {
            "B-301": self._bk("Ana Lima", "C-07", "2025-10-16 09:00", "2025-10-16 17:00"),
            "B-302": self._bk("Ana Lima", "C-11", "2025-10-19 10:00", "2025-10-19 12:00"),
            "B-305": self._bk("Ines Duarte", "C-02", "2025-10-16 17:00", "2025-10-16 19:30"),
            "B-310": self._bk("Ben Carter", "C-12", "2025-10-18 10:00", "2025-10-18 14:00"),
            "B-311": self._bk("Ben Carter", "C-05", "2025-10-16 08:00", "2025-10-16 09:00"),
            "B-312": self._bk("Carla Diaz", "C-03", "2025-10-18 09:00", "2025-10-18 18:00"),
            "B-313": self._bk("Carla Diaz", "C-01", "2025-10-19 09:00", "2025-10-19 13:00"),
            "B-314": self._bk("Dev Patel", "C-06", "2025-10-18 11:00", "2025-10-18 15:00"),
        }
        self._next = 320
        self.initial = copy.deepcopy((self.cars, self.bookings))

    @staticmethod
    def _bk(member: str, car: str, start: str, end: str) -> dict[str, str]:
        return {"member": member, "car": car, "start": start, "end": end, "status": "booked"}

    def _car_id(self, car_id: str) -> str:
        key = _key(car_id)
        if re.fullmatch(r"C\d+", key):
            key = f"C-{int(key[1:]):02d}"
        if key not in self.cars:
            raise ToolInputError(f"no car {car_id!r}; use find_cars to see a station's cars")
        return key

    def _booking(self, booking_id: str) -> str:
        key = _key(booking_id)
        if key not in self.bookings:
            raise ToolInputError(f"no booking {booking_id!r}; see member_bookings")
        return key

    def _member(self, name: str) -> str:
        want = _norm(name)
        hits = [m for m in self.members if want and want in _norm(m)]
        if len(hits) != 1:
            raise ToolInputError(f"no member named {name!r}")
        return hits[0]

    def _free(self, car: str, start: str, end: str, ignore: str = "") -> bool:
        return not any(
            b["car"] == car and b["status"] == "booked" and b["start"] < end and start < b["end"]
            for bid, b in self.bookings.items()
            if bid != ignore
        )

    def _window(self, start: str, end: str) -> tuple[str, str]:
        s, e = _moment(start, "start"), _moment(end, "end")
        if s >= e:
            raise ToolInputError("end must be after start")
        return s, e

    def _usable(self, car: str, start: str, end: str, ignore: str = "") -> None:
        c = self.cars[car]
        if c["flag"]:
            raise ToolInputError(f"{car} is flagged for maintenance ({c['flag']}); pick another")
        if not self._free(car, start, end, ignore):
            raise ToolInputError(f"{car} is already booked between {start} and {end}")

    def find_cars(self, station: str, start: str, end: str) -> list[dict]:
        """The cars at a station free from start to end: level (% charge or fuel), rate, flag.

        Args:
            station: Central Station, Harbour or Old Town.
            start: 'YYYY-MM-DD HH:MM' (today is Wednesday 2025-10-15).
            end: 'YYYY-MM-DD HH:MM'.
        """
        want = _norm(station)
        stations = {c["station"] for c in self.cars.values()}
        match = [s for s in stations if want and (want in _norm(s) or _norm(s) in want)]
        if len(match) != 1:
            raise ToolInputError(f"no station {station!r}; stations: {', '.join(sorted(stations))}")
        s, e = self._window(start, end)
        return [
            {"car_id": cid, **{k: v for k, v in c.items() if k != "flag"}, "flag": c["flag"]}
            for cid, c in self.cars.items()
            if c["station"] == match[0] and self._free(cid, s, e)
        ]

    def car_status(self, car_id: str) -> dict:
        """One car: station, kind, level (% charge or % fuel), hourly rate, maintenance flag."""
        cid = self._car_id(car_id)
        return {"car_id": cid, **self.cars[cid]}

    def member_bookings(self, member_name: str) -> list[dict]:
        """A member's bookings: booking_id, car, its station, start, end, weekday and status."""
        m = self._member(member_name)
        return [
            {
                "booking_id": bid,
                **b,
                "day": _weekday(b["start"]),
                "station": self.cars[b["car"]]["station"],
            }
            for bid, b in self.bookings.items()
            if b["member"] == m
        ]

    def book_car(self, member_name: str, car_id: str, start: str, end: str) -> dict:
        """Book a car for a member from start to end.

        Args:
            member_name: The member's name.
            car_id: The car, e.g. C-01.
            start: 'YYYY-MM-DD HH:MM' (today is Wednesday 2025-10-15).
            end: 'YYYY-MM-DD HH:MM'.
        """
        m = self._member(member_name)
        cid = self._car_id(car_id)
        s, e = self._window(start, end)
        self._usable(cid, s, e)
        bid = f"B-{self._next}"
        self._next += 1
        self.bookings[bid] = self._bk(m, cid, s, e)
        return {"booking_id": bid, **self.bookings[bid]}

    def change_booking_car(self, booking_id: str, car_id: str) -> dict:
        """Put another car on an existing booking (same times)."""
        bid = self._booking(booking_id)
        cid = self._car_id(car_id)
        b = self.bookings[bid]
        if b["status"] != "booked":
            raise ToolInputError(f"{bid} is {b['status']}")
        if b["car"] == cid:
            raise ToolInputError(f"{bid} already has {cid}")
        self._usable(cid, b["start"], b["end"], ignore=bid)
        b["car"] = cid
        return {"booking_id": bid, **b}

    def cancel_booking(self, booking_id: str) -> str:
        """Cancel a booking."""
        bid = self._booking(booking_id)
        if self.bookings[bid]["status"] != "booked":
            raise ToolInputError(f"{bid} is already {self.bookings[bid]['status']}")
        self.bookings[bid]["status"] = "cancelled"
        return f"{bid} cancelled"

    def flag_car(self, car_id: str, issue: str) -> str:
        """Flag a car for maintenance with the issue found; a flagged car cannot be booked."""
        cid = self._car_id(car_id)
        if not str(issue).strip():
            raise ToolInputError("say what the issue is")
        self.cars[cid]["flag"] = str(issue).strip()
        return f"{cid} flagged: {issue}"

    def tools(self) -> list[FunctionTool]:
        """The fleet desk's tools."""
        return [
            FunctionTool(self.find_cars, read_only=True),
            FunctionTool(self.car_status, read_only=True),
            FunctionTool(self.member_bookings, read_only=True),
            FunctionTool(self.book_car),
            FunctionTool(self.change_booking_car),
            FunctionTool(self.cancel_booking),
            FunctionTool(self.flag_car),
        ]


def _fleet_changes(w: CarShare) -> tuple[dict, dict, dict]:
    """Cars changed, existing bookings changed (field -> new value), and new bookings."""
    cars, bookings = w.initial
    cars_changed = {cid: c for cid, c in w.cars.items() if c != cars[cid]}
    changed = {}
    for bid, b in w.bookings.items():
        if bid in bookings and b != bookings[bid]:
            changed[bid] = {k: v for k, v in b.items() if bookings[bid][k] != v}
    new = {bid: b for bid, b in w.bookings.items() if bid not in bookings}
    return cars_changed, changed, new


def check_ana_switch(w: CarShare, answer: str) -> Verdict:
    """B-301 now has C-03 (or was cancelled for one new booking of C-03, same times)."""
    cars, changed, new = _fleet_changes(w)
    same = {"member": "Ana Lima", "car": "C-03", "start": "2025-10-16 09:00"}
    same |= {"end": "2025-10-16 17:00", "status": "booked"}
    switched = changed == {"B-301": {"car": "C-03"}} and not new
    rebooked = changed == {"B-301": {"status": "cancelled"}} and list(new.values()) == [same]
    ok = not cars and (switched or rebooked)
    return Verdict(ok, f"cars changed {cars}; bookings changed {changed}; new {new}")


def check_saturday(w: CarShare, answer: str) -> Verdict:
    """B-310 and B-312 cancelled; nothing else."""
    cars, changed, new = _fleet_changes(w)
    gone = {"status": "cancelled"}
    ok = not cars and not new and changed == {"B-310": gone, "B-312": gone}
    return Verdict(ok, f"cars changed {cars}; bookings changed {changed}; new {new}")


def check_dev_cheapest(w: CarShare, answer: str) -> Verdict:
    """C-06 (8.00/h; C-04 is flagged, C-02 taken) for Dev, 18:00-22:00; answer 32."""
    cars, changed, new = _fleet_changes(w)
    want = {"member": "Dev Patel", "car": "C-06", "start": "2025-10-16 18:00"}
    want |= {"end": "2025-10-16 22:00", "status": "booked"}
    ok = not cars and not changed and list(new.values()) == [want] and has_number(answer, 32)
    return Verdict(ok, f"bookings changed {changed}; new {new}; answer {answer[:120]!r}")


def check_wipers(w: CarShare, answer: str) -> Verdict:
    """C-12 flagged for its wipers; no other car or booking touched."""
    cars, changed, new = _fleet_changes(w)
    ok = (
        set(cars) == {"C-12"}
        and "wiper" in cars["C-12"]["flag"].lower()
        and {k for k, v in cars["C-12"].items() if w.initial[0]["C-12"][k] != v} == {"flag"}
        and not changed
        and not new
    )
    return Verdict(ok, f"cars changed {cars}; bookings changed {changed}; new {new}")


# --------------------------------------------------------------------------- cinema
def _seats(rows: str, per_row: int) -> list[str]:
    return [f"{r}{n}" for r in rows for n in range(1, per_row + 1)]


class Cinema:
    """A cinema box office: screenings, seats, tickets, refunds; members pay 20% less."""

    def __init__(self) -> None:
        self.screenings: dict[str, dict[str, Any]] = {
            "S-1": self._show("Dune: Part Two", "2025-10-15", "20:00", 1, 12.0, "ABCDEF"),
            "S-2": self._show("Paper Moons", "2025-10-15", "21:00", 2, 10.0, "ABCD"),
            "S-3": self._show("Paper Moons", "2025-10-15", "21:40", 3, 10.0, "ABCD"),
            "S-4": self._show("Dune: Part Two", "2025-10-17", "19:30", 1, 12.0, "ABCDEF"),
            "S-5": self._show("The Lighthouse Keeper", "2025-10-18", "18:00", 2, 10.0, "ABCD"),
            "S-6": self._show("Paper Moons", "2025-10-16", "21:00", 2, 10.0, "ABCD"),
            "S-7": self._show("Dune: Part Two", "2025-10-15", "17:00", 1, 12.0, "ABCDEF"),
        }
        free = {
            "S-1": "A1 A2 A10 B1 E1 E2 E5 E6 E7 E9 E10 F1 F2 F3 F4 F5 F6",
            "S-2": "D10",
            "S-3": " ".join(_seats("CD", 10)),
            "S-4": " ".join(s for s in _seats("ABCDEF", 10) if s not in ("C4", "C5", "C6")),
            "S-5": " ".join(s for s in _seats("ABCD", 10) if s != "B7"),
            "S-6": " ".join(_seats("BCD", 10)),
            "S-7": " ".join(_seats("DEF", 10)),
        }
        for sid, show in self.screenings.items():
            show["taken"] = set(show["seats"]) - set(free[sid].split())
        self.members = {"Kim Alvarez": "M-77", "Ana Lima": "M-12"}
        self.tickets: dict[str, dict[str, Any]] = {
            "T-900": self._ticket("Kim Alvarez", "S-4", "C4", 9.60),
            "T-901": self._ticket("Kim Alvarez", "S-4", "C5", 9.60),
            "T-902": self._ticket("Kim Alvarez", "S-4", "C6", 12.00),
            "T-903": self._ticket("Kim Alvarez", "S-5", "B7", 8.00),
        }
        self.refunds: list[tuple[str, float]] = []
        self._next = 910
        self.initial = copy.deepcopy((self.tickets, self.screenings))

    @staticmethod
    def _show(film: str, date: str, time: str, screen: int, price: float, rows: str) -> dict:
        return {
            "film": film,
            "date": date,
            "time": time,
            "screen": screen,
            "price": price,
            "seats": _seats(rows, 10),
        }

    @staticmethod
    def _ticket(customer: str, screening: str, seat: str, paid: float) -> dict[str, Any]:
        return {
            "customer": customer,
            "screening": screening,
            "seat": seat,
            "price_paid": paid,
            "status": "sold",
        }

    def _screening(self, screening_id: str) -> str:
        key = _key(screening_id)
        if re.fullmatch(r"S\d+", key):
            key = "S-" + key[1:]
        if key not in self.screenings:
            raise ToolInputError(f"no screening {screening_id!r}; see list_screenings")
        return key

    def list_screenings(self, date: str) -> list[dict]:
        """The screenings on a date: id, film, time, screen, ticket price and seats free.

        Args:
            date: YYYY-MM-DD (today is Wednesday 2025-10-15).
        """
        day = _date(date)
        return [
            {
                "screening_id": sid,
                "film": s["film"],
                "time": s["time"],
                "screen": s["screen"],
                "price": s["price"],
                "seats_free": len(s["seats"]) - len(s["taken"]),
            }
            for sid, s in sorted(self.screenings.items(), key=lambda kv: kv[1]["time"])
            if s["date"] == day
        ]

    def free_seats(self, screening_id: str) -> dict:
        """The free seats of a screening (row letter + seat number; seats 1-10 left to right)."""
        sid = self._screening(screening_id)
        s = self.screenings[sid]
        return {"screening_id": sid, "free": [x for x in s["seats"] if x not in s["taken"]]}

    def sell_ticket(self, screening_id: str, seat: str, customer_name: str) -> dict:
        """Sell one seat of a screening to a customer; members get 20% off automatically."""
        sid = self._screening(screening_id)
        s = self.screenings[sid]
        label = _key(seat)
        label = re.sub(r"^([A-Z])0*(\d+)$", r"\1\2", label)
        if label not in s["seats"]:
            raise ToolInputError(f"no seat {seat!r} in screen {s['screen']}; see free_seats")
        if label in s["taken"]:
            raise ToolInputError(f"seat {label} is taken; see free_seats")
        customer = " ".join(str(customer_name).split())
        if not customer:
            raise ToolInputError("give the customer's name")
        member = next((m for m in self.members if _norm(m) == _norm(customer)), None)
        price = round(s["price"] * (0.8 if member else 1.0), 2)
        s["taken"].add(label)
        tid = f"T-{self._next}"
        self._next += 1
        self.tickets[tid] = self._ticket(member or customer, sid, label, price)
        return {
            "ticket_id": tid,
            "film": s["film"],
            "date": s["date"],
            "time": s["time"],
            "seat": label,
            "price": price,
            "member_discount": bool(member),
        }

    def find_tickets(self, customer_name: str) -> list[dict]:
        """A customer's tickets: ticket_id, film, date, weekday, time, seat, price paid, status."""
        want = _norm(customer_name)
        return [
            {
                "ticket_id": tid,
                "film": self.screenings[t["screening"]]["film"],
                "date": self.screenings[t["screening"]]["date"],
                "day": _weekday(self.screenings[t["screening"]]["date"]),
                "time": self.screenings[t["screening"]]["time"],
                "seat": t["seat"],
                "price_paid": t["price_paid"],
                "status": t["status"],
            }
            for tid, t in self.tickets.items()
            if want and want in _norm(t["customer"])
        ]

    def refund_ticket(self, ticket_id: str) -> str:
        """Refund a ticket: the customer gets back what they paid and the seat is freed."""
        tid = _key(ticket_id)
        if tid not in self.tickets:
            raise ToolInputError(f"no ticket {ticket_id!r}; see find_tickets")
        t = self.tickets[tid]
        if t["status"] != "sold":
            raise ToolInputError(f"{tid} is already {t['status']}")
        t["status"] = "refunded"
        self.screenings[t["screening"]]["taken"].discard(t["seat"])
        self.refunds.append((tid, t["price_paid"]))
        return f"{tid} refunded: {t['price_paid']:.2f} back to {t['customer']}"

    def tools(self) -> list[FunctionTool]:
        """The box office's tools."""
        return [
            FunctionTool(self.list_screenings, read_only=True),
            FunctionTool(self.free_seats, read_only=True),
            FunctionTool(self.find_tickets, read_only=True),
            FunctionTool(self.sell_ticket),
            FunctionTool(self.refund_ticket),
        ]


def _box_changes(w: Cinema) -> tuple[dict, dict]:
    """Existing tickets changed (field -> new value), and new tickets still sold (not refunded)."""
    tickets = w.initial[0]
    changed = {}
    for tid, t in w.tickets.items():
        if tid in tickets and t != tickets[tid]:
            changed[tid] = {k: v for k, v in t.items() if tickets[tid][k] != v}
    new = {tid: t for tid, t in w.tickets.items() if tid not in tickets and t["status"] == "sold"}
    return changed, new


def check_row_e(w: Cinema, answer: str) -> Verdict:
    """E5, E6 and E7 of tonight's 20:00 Dune sold to Ana Lima; nothing else."""
    changed, new = _box_changes(w)
    ok = (
        not changed
        and len(new) == 3
        and all(t["screening"] == "S-1" and t["customer"] == "Ana Lima" for t in new.values())
        and {t["seat"] for t in new.values()} == {"E5", "E6", "E7"}
    )
    return Verdict(ok, f"changed {changed}; sold {new}")


def check_paper_moons(w: Cinema, answer: str) -> Verdict:
    """The 21:00 has one seat free, so two seats at tonight's 21:40 for Lena; nothing else."""
    changed, new = _box_changes(w)
    ok = (
        not changed
        and len(new) == 2
        and all(
            t["screening"] == "S-3" and _norm(t["customer"]) == "lenawolf" for t in new.values()
        )
    )
    return Verdict(ok, f"changed {changed}; sold {new}")


def check_kim_refund(w: Cinema, answer: str) -> Verdict:
    """Kim's three Friday tickets refunded (9.60 + 9.60 + 12.00 = 31.20), Saturday's kept."""
    changed, new = _box_changes(w)
    gone = {"status": "refunded"}
    ok = (
        not new
        and changed == {"T-900": gone, "T-901": gone, "T-902": gone}
        and has_number(answer, 31.2)
    )
    return Verdict(ok, f"changed {changed}; sold {new}; answer {answer[:120]!r}")


def check_dune_seats(w: Cinema, answer: str) -> Verdict:
    """The answer says 17 and nothing was sold or refunded."""
    changed, new = _box_changes(w)
    ok = not changed and not new and has_number(answer, 17)
    return Verdict(ok, f"changed {changed}; sold {new}; answer {answer[:120]!r}")


# --------------------------------------------------------------------------- missions
MISSIONS = [
    # hotel
    Mission(
        "hotel-late-checkout",
        "Priya Nair is asking for a late checkout tomorrow, until 1pm. If she's a gold member "
        "that's on the house; otherwise add our 30 euro late-checkout fee to her bill.",
        Hotel,
        check_late_checkout,
        reference=(
            call("find_reservation", guest_name="Priya Nair"),
            call("set_late_checkout", reservation_id="R-1041", until="13:00"),
            call("add_charge", reservation_id="R-1041", description="Late checkout", amount=30),
            reply(
                "Priya is silver, not gold: late checkout until 13:00, and the 30 euro fee "
                "is on her bill."
            ),
        ),
        tags=("conditional", "chain"),
    ),
    Mission(
        "hotel-move-to-suites",
        "Ana Lima and Ben Carter are upset about the noise on their floor. Move each of them "
        "into a free suite for their stay.",
        Hotel,
        check_suites,
        reference=(
            call("find_reservation", guest_name="Ana Lima"),
            call("find_reservation", guest_name="Ben Carter"),
            call(
                "available_rooms", room_type="suite", check_in="2025-10-15", check_out="2025-10-17"
            ),
            call("move_room", reservation_id="R-1043", room="203"),
            call("move_room", reservation_id="R-1044", room="305"),
            reply("Ana Lima is now in suite 203 and Ben Carter in suite 305."),
        ),
        tags=("fan-out", "chain"),
    ),
    Mission(
        "hotel-shower-credit",
        "Tom Becker's shower has been broken his whole stay. Give him 15% off his room charges "
        "(not the extras) as a credit on his bill.",
        Hotel,
        check_shower_credit,
        reference=(
            call("find_reservation", guest_name="Tom Becker"),
            call("get_invoice", reservation_id="R-1040"),
            call(
                "add_charge",
                reservation_id="R-1040",
                description="Credit: broken shower, 15% of room charges",
                amount=-78,
            ),
            reply("Room charges were 4 x 130 = 520; a credit of 78.00 is on his bill."),
        ),
        tags=("arithmetic", "chain"),
    ),
    Mission(
        "hotel-minibar",
        "Add a 12.50 minibar charge to reservation R-1042.",
        Hotel,
        check_minibar,
        reference=(
            call("add_charge", reservation_id="R-1042", description="Minibar", amount=12.5),
            reply("12.50 minibar charge added to R-1042."),
        ),
        tags=("single",),
    ),
    # pharmacy
    Mission(
        "pharm-sertraline",
        "Marta Silva is at the counter for her sertraline. Fill it, and if that was her last "
        "refill, send her doctor a renewal request too.",
        Pharmacy,
        check_sertraline,
        reference=(
            call("find_patient", name="Marta Silva"),
            call("fill_prescription", rx_id="RX-501"),
            call("request_renewal", rx_id="RX-501"),
            reply("Sertraline filled; that used her last refill, so I asked her doctor to renew."),
        ),
        tags=("conditional", "chain"),
    ),
    Mission(
        "pharm-three-fills",
        "Please fill George Park's and Lena Wolf's lisinopril prescriptions, and Omar Haddad's "
        "atorvastatin.",
        Pharmacy,
        check_three_fills,
        reference=(
            call("find_patient", name="George Park"),
            call("find_patient", name="Lena Wolf"),
            call("find_patient", name="Omar Haddad"),
            call("fill_prescription", rx_id="RX-503"),
            call("fill_prescription", rx_id="RX-504"),
            call("fill_prescription", rx_id="RX-506"),
            reply("Filled RX-503 (George Park), RX-504 (Lena Wolf) and RX-506 (Omar Haddad)."),
        ),
        tags=("fan-out", "chain"),
    ),
    Mission(
        "pharm-copay-pickup",
        "George Park is picking up his atorvastatin. Work out what he owes after insurance, "
        "record the pickup with that payment, and tell me the amount.",
        Pharmacy,
        check_copay,
        reference=(
            call("find_patient", name="George Park"),
            call("check_stock", drug="atorvastatin"),
            call("record_pickup", rx_id="RX-508", amount_paid=7.5),
            reply("30 x 1.25 = 37.50; his basic plan pays 80%, so he paid 7.50."),
        ),
        tags=("arithmetic", "chain"),
    ),
    Mission(
        "pharm-ibuprofen-stock",
        "How many ibuprofen 400 mg tablets do we have in stock?",
        Pharmacy,
        check_ibuprofen,
        reference=(
            call("check_stock", drug="ibuprofen"),
            reply("We have 96 tablets of ibuprofen on the shelf."),
        ),
        tags=("single",),
    ),
    # car share
    Mission(
        "car-ana-range",
        "Ana Lima is driving 120 km tomorrow in the car she has booked. Our electric cars do "
        "about 4 km per 1% of charge. If her car can't make that on its current charge, switch "
        "her booking to the best-charged car at the same station that isn't flagged for "
        "maintenance; if it can, leave the booking as it is.",
        CarShare,
        check_ana_switch,
        reference=(
            call("member_bookings", member_name="Ana Lima"),
            call("car_status", car_id="C-07"),
            call("find_cars", station="Harbour", start="2025-10-16 09:00", end="2025-10-16 17:00"),
            call("change_booking_car", booking_id="B-301", car_id="C-03"),
            reply(
                "C-07 has 22% (about 88 km), too little for 120 km: her booking B-301 now "
                "has C-03 (85%)."
            ),
        ),
        tags=("conditional", "arithmetic", "chain"),
    ),
    Mission(
        "car-cancel-saturday",
        "Ben Carter and Carla Diaz have both called off their Saturday trips. Cancel their "
        "Saturday bookings.",
        CarShare,
        check_saturday,
        reference=(
            call("member_bookings", member_name="Ben Carter"),
            call("member_bookings", member_name="Carla Diaz"),
            call("cancel_booking", booking_id="B-310"),
            call("cancel_booking", booking_id="B-312"),
            reply("Cancelled B-310 (Ben Carter) and B-312 (Carla Diaz)."),
        ),
        tags=("fan-out", "chain"),
    ),
    Mission(
        "car-cheapest-central",
        "Book Dev Patel the cheapest car available at Central Station tomorrow from 6pm to "
        "10pm, and tell me what it will cost him.",
        CarShare,
        check_dev_cheapest,
        reference=(
            call(
                "find_cars",
                station="Central Station",
                start="2025-10-16 18:00",
                end="2025-10-16 22:00",
            ),
            call(
                "book_car",
                member_name="Dev Patel",
                car_id="C-06",
                start="2025-10-16 18:00",
                end="2025-10-16 22:00",
            ),
            reply("C-04 is flagged, so Dev has C-06 at 8.00 an hour: 4 hours, 32.00 euros."),
        ),
        tags=("arithmetic", "chain"),
    ),
    Mission(
        "car-flag-wipers",
        "Flag car C-12 for maintenance: its wipers are broken.",
        CarShare,
        check_wipers,
        reference=(
            call("flag_car", car_id="C-12", issue="wipers broken"),
            reply("C-12 is flagged for maintenance (broken wipers)."),
        ),
        tags=("single",),
    ),
    # cinema
    Mission(
        "cinema-row-e",
        "Ana Lima wants three seats next to each other in row E for tonight's 8pm Dune. Book "
        "them under her name.",
        Cinema,
        check_row_e,
        reference=(
            call("list_screenings", date="2025-10-15"),
            call("free_seats", screening_id="S-1"),
            call("sell_ticket", screening_id="S-1", seat="E5", customer_name="Ana Lima"),
            call("sell_ticket", screening_id="S-1", seat="E6", customer_name="Ana Lima"),
            call("sell_ticket", screening_id="S-1", seat="E7", customer_name="Ana Lima"),
            reply("Ana Lima has E5, E6 and E7 for Dune tonight at 20:00."),
        ),
        tags=("fan-out", "chain"),
    ),
    Mission(
        "cinema-paper-moons",
        "Lena Wolf wants two tickets for Paper Moons at 9 tonight. If the 9 o'clock showing "
        "doesn't have two free seats, book her two at tonight's later showing instead.",
        Cinema,
        check_paper_moons,
        reference=(
            call("list_screenings", date="2025-10-15"),
            call("free_seats", screening_id="S-3"),
            call("sell_ticket", screening_id="S-3", seat="C5", customer_name="Lena Wolf"),
            call("sell_ticket", screening_id="S-3", seat="C6", customer_name="Lena Wolf"),
            reply("The 21:00 has only one seat left, so Lena has C5 and C6 at 21:40."),
        ),
        tags=("conditional", "chain"),
    ),
    Mission(
        "cinema-kim-refund",
        "Kim Alvarez can't make Friday's Dune after all. Refund her tickets for it and tell me "
        "how much she gets back in total.",
        Cinema,
        check_kim_refund,
        reference=(
            call("find_tickets", customer_name="Kim Alvarez"),
            call("refund_ticket", ticket_id="T-900"),
            call("refund_ticket", ticket_id="T-901"),
            call("refund_ticket", ticket_id="T-902"),
            reply("Refunded T-900, T-901 and T-902: 9.60 + 9.60 + 12.00 = 31.20 back to Kim."),
        ),
        tags=("fan-out", "arithmetic", "chain"),
    ),
    Mission(
        "cinema-dune-seats",
        "How many seats are still free for tonight's 8pm Dune?",
        Cinema,
        check_dune_seats,
        reference=(
            call("list_screenings", date="2025-10-15"),
            reply("17 seats are free for Dune at 20:00 tonight."),
        ),
        tags=("single",),
    ),
]

SUITE = Suite(
    "counters",
    tuple(MISSIONS),
    description="16 user-written missions over a hotel, a pharmacy, a car share and a cinema",
)
