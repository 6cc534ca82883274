"""Seed 001's published numbers (Hu & Kwok, Tables 2–3) and the rows our table prints beside
them; :mod:`.flexible_npkl_admm` runs the units, :mod:`.flexible_npkl_readings` reads them."""

from __future__ import annotations

#: Table 2 (accuracy mean, std) and Table 3 (CPU s mean) of seed 001, per loss and method
PAPER_ACC = {
    ("SL", "ADMM"): {
        "glass": (80.9, 1.1),
        "heart": (93.3, 1.9),
        "iris": (99.0, 1.1),
        "sonar": (95.5, 2.5),
        "wine": (83.2, 1.8),
        "odd-even": (99.37, 0.06),
    },
    ("SL", "S-NPKL"): {
        "glass": (80.3, 1.8),
        "heart": (91.7, 2.5),
        "iris": (99.2, 1.0),
        "sonar": (95.2, 2.6),
        "wine": (82.9, 1.8),
        "odd-even": (99.35, 0.09),
    },
    ("HL", "ADMM"): {
        "glass": (80.1, 1.2),
        "heart": (92.4, 2.5),
        "iris": (99.2, 1.0),
        "sonar": (95.9, 2.4),
        "wine": (83.4, 1.6),
        "odd-even": (99.35, 0.05),
    },
    ("HL", "S-NPKL"): {
        "glass": (80.6, 1.1),
        "heart": (88.1, 4.1),
        "iris": (99.1, 0.8),
        "sonar": (95.5, 2.4),
        "wine": (83.3, 1.6),
        "odd-even": (99.42, 0.08),
    },
    ("HL", "SDP"): {
        "glass": (79.6, 1.5),
        "heart": (90.0, 2.8),
        "iris": (98.9, 0.7),
        "sonar": (94.9, 1.2),
        "wine": (82.1, 2.3),
        "odd-even": (98.35, 0.20),
    },
    ("SHL", "ADMM"): {
        "glass": (80.7, 1.6),
        "heart": (93.4, 2.0),
        "iris": (99.0, 1.1),
        "sonar": (95.5, 2.5),
        "wine": (83.1, 2.1),
        "odd-even": (99.35, 0.10),
    },
    ("SHL", "S-NPKL"): {
        "glass": (80.5, 2.0),
        "heart": (93.2, 2.2),
        "iris": (99.2, 1.0),
        "sonar": (95.5, 2.5),
        "wine": (83.0, 2.0),
        "odd-even": (99.35, 0.09),
    },
    ("l1", "ADMM"): {
        "glass": (79.1, 1.8),
        "heart": (88.0, 4.5),
        "iris": (98.2, 1.6),
        "sonar": (94.7, 2.4),
        "wine": (80.5, 2.4),
        "odd-even": (96.62, 0.12),
    },
}
PAPER_CPU = {
    ("SL", "ADMM"): {
        "glass": 5.5,
        "heart": 10.4,
        "iris": 2.3,
        "sonar": 6.8,
        "wine": 3.6,
        "odd-even": 359,
    },
    ("SL", "S-NPKL"): {
        "glass": 46.2,
        "heart": 311.0,
        "iris": 23.4,
        "sonar": 176.0,
        "wine": 37.0,
        "odd-even": 3680,
    },
    ("HL", "ADMM"): {
        "glass": 6.9,
        "heart": 12.8,
        "iris": 2.9,
        "sonar": 7.4,
        "wine": 4.9,
        "odd-even": 361,
    },
    ("HL", "S-NPKL"): {
        "glass": 59.8,
        "heart": 224.0,
        "iris": 41.9,
        "sonar": 180.7,
        "wine": 49.1,
        "odd-even": 1955,
    },
    ("HL", "SDP"): {
        "glass": 17.4,
        "heart": 40.1,
        "iris": 8.8,
        "sonar": 21.6,
        "wine": 9.4,
        "odd-even": 20065,
    },
    ("SHL", "ADMM"): {
        "glass": 5.1,
        "heart": 11.5,
        "iris": 1.9,
        "sonar": 5.1,
        "wine": 3.9,
        "odd-even": 357,
    },
    ("SHL", "S-NPKL"): {
        "glass": 57.76,
        "heart": 157.0,
        "iris": 15.3,
        "sonar": 131.2,
        "wine": 55.4,
        "odd-even": 1736,
    },
    ("l1", "ADMM"): {
        "glass": 7.7,
        "heart": 13.6,
        "iris": 3.6,
        "sonar": 8.4,
        "wine": 5.5,
        "odd-even": 413,
    },
}
ROWS = [
    ("SL", "ADMM B=n"),
    ("SL", "ADMM (1)"),
    ("SL", "S-NPKL"),
    ("HL", "ADMM B=n"),
    ("HL", "ADMM (1)"),
    ("HL", "S-NPKL"),
    ("HL", "SDP"),
    ("SHL", "ADMM B=n"),
    ("SHL", "ADMM (1)"),
    ("SHL", "S-NPKL"),
    ("l1", "ADMM B=n"),
    ("l1", "ADMM (1)"),
]
#: the paper's row each of ours stands beside (both ADMM readings beside the paper's ADMM)
PAPER_ROW = {"ADMM B=n": "ADMM", "ADMM (1)": "ADMM", "S-NPKL": "S-NPKL", "SDP": "SDP"}


def paper_cell(key, name) -> tuple[float, float]:
    """The paper's (mean, std) beside our row ``key`` = (loss, method) on data set ``name``."""
    return PAPER_ACC[(key[0], PAPER_ROW[key[1]])][name]


def band(key, name) -> float:
    """The paper's spread: max(2·std, 3 points) around its mean."""
    return max(2 * paper_cell(key, name)[1], 3.0)
