"""Journal names as people read them, for venues a library holds as a LaTeX macro.

Libraries filled from the NASA ADS (most astronomy libraries) hold a journal as the AAS macro its BibTeX
export writes ("\\apj", "\\mnras", "\\aap"): LaTeX with the AAS or MNRAS class prints the name, everything
else prints the backslash. The names below are those the macros stand for (AAS's list of journal macros);
a macro not on it stays as written.
"""

from __future__ import annotations

import re

_MACROS: dict[str, str] = {
    "aj": "The Astronomical Journal",
    "actaa": "Acta Astronomica",
    "araa": "Annual Review of Astronomy and Astrophysics",
    "apj": "The Astrophysical Journal",
    "apjl": "The Astrophysical Journal Letters",
    "apjs": "The Astrophysical Journal Supplement Series",
    "ao": "Applied Optics",
    "apss": "Astrophysics and Space Science",
    "aap": "Astronomy and Astrophysics",
    "aapr": "The Astronomy and Astrophysics Review",
    "aaps": "Astronomy and Astrophysics Supplement Series",
    "azh": "Astronomicheskii Zhurnal",
    "baas": "Bulletin of the American Astronomical Society",
    "bac": "Bulletin of the Astronomical Institutes of Czechoslovakia",
    "bain": "Bulletin of the Astronomical Institutes of the Netherlands",
    "caa": "Chinese Astronomy and Astrophysics",
    "cjaa": "Chinese Journal of Astronomy and Astrophysics",
    "icarus": "Icarus",
    "jcap": "Journal of Cosmology and Astroparticle Physics",
    "jrasc": "Journal of the Royal Astronomical Society of Canada",
    "memras": "Memoirs of the Royal Astronomical Society",
    "mnras": "Monthly Notices of the Royal Astronomical Society",
    "na": "New Astronomy",
    "nar": "New Astronomy Reviews",
    "pra": "Physical Review A",
    "prb": "Physical Review B",
    "prc": "Physical Review C",
    "prd": "Physical Review D",
    "pre": "Physical Review E",
    "prl": "Physical Review Letters",
    "pasa": "Publications of the Astronomical Society of Australia",
    "pasp": "Publications of the Astronomical Society of the Pacific",
    "pasj": "Publications of the Astronomical Society of Japan",
    "psj": "The Planetary Science Journal",
    "rmxaa": "Revista Mexicana de Astronomía y Astrofísica",
    "qjras": "Quarterly Journal of the Royal Astronomical Society",
    "skytel": "Sky and Telescope",
    "solphys": "Solar Physics",
    "sovast": "Soviet Astronomy",
    "ssr": "Space Science Reviews",
    "zap": "Zeitschrift für Astrophysik",
    "nat": "Nature",
    "iaucirc": "IAU Circulars",
    "aplett": "Astrophysics Letters",
    "apspr": "Astrophysics Space Physics Research",
    "fcp": "Fundamentals of Cosmic Physics",
    "gca": "Geochimica et Cosmochimica Acta",
    "grl": "Geophysical Research Letters",
    "jcp": "The Journal of Chemical Physics",
    "jgr": "Journal of Geophysical Research",
    "jqsrt": "Journal of Quantitative Spectroscopy and Radiative Transfer",
    "memsai": "Memorie della Società Astronomica Italiana",
    "nphysa": "Nuclear Physics A",
    "physrep": "Physics Reports",
    "physscr": "Physica Scripta",
    "planss": "Planetary and Space Science",
    "procspie": "Proceedings of the SPIE",
}
_MACRO = re.compile(r"\s*\{?\s*\\([A-Za-z]+)\s*\}?\s*")


def readable_venue(venue: str) -> str:
    """``venue`` with a journal macro ("\\apjs", "{\\mnras}") written out as the journal's name."""
    found = _MACRO.fullmatch(venue)
    if found is None:
        return venue
    return _MACROS.get(found.group(1).lower(), venue)
