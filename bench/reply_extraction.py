"""Reply extraction time per MB, ordinary and hostile text and HTML, at 64 KB, 512 KB and 2 MB.

    .venv/bin/python -m bench.reply_extraction [--repeat 3]

Linear time shows as a flat time per MB and a 2 MB / 64 KB time ratio near 32 (the size ratio). The
hostile inputs are the shapes that made the earlier rules or the standard library's HTML parser take
quadratic time, and shapes that make each of the scanner's look-aheads work hardest.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

from app.inbound.reply import extract_reply

KB = 1024
SIZES = {"64 KB": 64 * KB, "512 KB": 512 * KB, "2 MB": 2048 * KB}


def _fill(unit: str, size: int) -> str:
    return (unit * (size // len(unit) + 1))[:size]


ORDINARY_TEXT = (
    "Hello, the replacement arrived yesterday but the hinge is loose again.\n"
    "Could you send a technician next week? Tuesday or Thursday morning suits me.\n\n"
    "Thanks,\nAnn\n\n"
)
ORDINARY_HTML = (
    '<div dir="ltr"><p class="MsoNormal"><span style="font-size:11pt">Hello, the replacement arrived '
    "yesterday but the hinge is loose again.</span></p><div>Could you send a technician <b>next week</b>? "
    "Tuesday or Thursday morning suits me.<br></div><div><br></div><div>Thanks,<br>Ann</div></div>\n"
)

ATTRIBUTION = "\nOn Mon, 5 Jan 2026 at 10:12, Bob <b@x.io> wrote:\n> Hi"

# name -> (text, html) builders for one size
CASES: dict[str, Callable[[int], tuple[str, str]]] = {
    "text, ordinary": lambda size: (_fill(ORDINARY_TEXT, size) + ATTRIBUTION, ""),
    "text, one line 'Am schrieb schrieb ... 1'": lambda size: ("Am " + _fill("schrieb ", size) + "1", ""),
    "text, attribution never ending": lambda size: (_fill("On 5.1.2026 10:12 Ann <a@x.io>\n", size), ""),
    "text, header-like lines": lambda size: (_fill("From: Ann <a@x.io> 10:12\nline\n", size), ""),
    "text, footers between blank lines": lambda size: (_fill("Sent from my phone\n\n\n", size), ""),
    "text, quote lines": lambda size: (_fill("> quoted 2026 a@x.io\n", size), ""),
    "html, ordinary": lambda size: ("", _fill(ORDINARY_HTML, size)),
    "html, '</' run": lambda size: ("", "<p>Hi</p>" + _fill("</", size)),
    "html, '<a ' run": lambda size: ("", "<p>Hi</p>" + _fill("<a ", size)),
    "html, nested blockquotes": lambda size: ("", "<p>Hi</p>" + _fill("<blockquote><div>", size)),
    "html, block tags": lambda size: ("", _fill("<div>x</div><p>y</p><br>", size)),
}  # fmt: skip


def _seconds(text: str, html: str, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        started = time.perf_counter()
        extract_reply(text, html)
        best = min(best, time.perf_counter() - started)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="runs per input; the fastest counts")
    args = parser.parse_args()
    header = " | ".join(f"{name} ms/MB" for name in SIZES)
    print(f"| input | {header} | 2 MB / 64 KB time |")
    print("|---|" + "---|" * (len(SIZES) + 1))
    for name, build in CASES.items():
        per_mb = {}
        seconds = {}
        for label, size in SIZES.items():
            text, html = build(size)
            seconds[label] = _seconds(text, html, args.repeat)
            per_mb[label] = seconds[label] * 1000 / (size / (1024 * KB))
        ratio = seconds["2 MB"] / max(seconds["64 KB"], 1e-9)
        cells = " | ".join(f"{per_mb[label]:.0f}" for label in SIZES)
        print(f"| {name} | {cells} | {ratio:.0f} |", flush=True)


if __name__ == "__main__":
    main()
