#!/usr/bin/env python3
"""Renders a window of an npu-run Chrome trace (--trace=FILE) as an SVG.

One lane per (core, pipe) that did anything in the window, one bar per
instruction, coloured by pipe; a copy's bar spans its transfer and its
latency. Standard library only.

Usage: render-trace.py TRACE.json OUT.svg --cores "cube core 0,vector core 0"
           --start 200 --length 10 [--title TEXT]
(times in microseconds, as the trace has them)
"""

import argparse
import html
import json

COLOURS = {
    "scalar": "#9e9e9e",
    "dma": "#1f77b4",
    "dma out": "#17becf",
    "vector": "#2ca02c",
    "cube": "#d62728",
}
LANE, GAP, LEFT, TOP, WIDTH = 18, 6, 190, 40, 900


def load_lanes(trace, cores, start, end):
    """{(core, pipe): [(ts, dur, name)]} for the cores asked, in the window."""
    process = {}
    thread = {}
    for e in trace["traceEvents"]:
        if e.get("ph") != "M":
            continue
        if e["name"] == "process_name":
            process[e["pid"]] = e["args"]["name"]
        elif e["name"] == "thread_name":
            thread[(e["pid"], e["tid"])] = e["args"]["name"]
    lanes = {}
    for e in trace["traceEvents"]:
        if e.get("ph") != "X" or process.get(e["pid"]) not in cores:
            continue
        if e["ts"] + e["dur"] < start or e["ts"] > end:
            continue
        key = (process[e["pid"]], thread[(e["pid"], e["tid"])])
        lanes.setdefault(key, []).append((e["ts"], e["dur"], e["name"]))
    order = {name: i for i, name in enumerate(COLOURS)}
    return sorted(lanes.items(),
                  key=lambda kv: (cores.index(kv[0][0]), order[kv[0][1]]))


def render(lanes, start, length, title):
    scale = WIDTH / length
    height = TOP + len(lanes) * (LANE + GAP) + 30
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{LEFT + WIDTH + 20}"'
        f' height="{height}" font-family="sans-serif" font-size="11">',
        f'<text x="{LEFT}" y="20" font-size="13">{html.escape(title)}</text>',
    ]
    for row, ((core, pipe), events) in enumerate(lanes):
        y = TOP + row * (LANE + GAP)
        out.append(f'<text x="4" y="{y + 13}">{html.escape(core)}: '
                   f'{html.escape(pipe)}</text>')
        out.append(f'<rect x="{LEFT}" y="{y}" width="{WIDTH}" height="{LANE}"'
                   ' fill="#f4f4f4"/>')
        for ts, dur, name in events:
            x0 = max(ts, start)
            x1 = min(ts + dur, start + length)
            out.append(
                f'<rect x="{LEFT + (x0 - start) * scale:.2f}" y="{y + 2}"'
                f' width="{max((x1 - x0) * scale, 0.5):.2f}"'
                f' height="{LANE - 4}" fill="{COLOURS[pipe]}"'
                ' fill-opacity="0.75" stroke="white" stroke-width="0.3">'
                f'<title>{html.escape(name)} {dur:.3f} us</title></rect>')
    axis = TOP + len(lanes) * (LANE + GAP) + 12
    for tick in range(11):
        x = LEFT + tick * WIDTH / 10
        out.append(f'<text x="{x:.1f}" y="{axis}" text-anchor="middle">'
                   f'{start + tick * length / 10:g} us</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trace")
    parser.add_argument("output")
    parser.add_argument("--cores", required=True,
                        help="comma-separated process names of the trace")
    parser.add_argument("--start", type=float, required=True)
    parser.add_argument("--length", type=float, required=True)
    parser.add_argument("--title", default="")
    args = parser.parse_args()
    with open(args.trace) as f:
        trace = json.load(f)
    cores = args.cores.split(",")
    lanes = load_lanes(trace, cores, args.start, args.start + args.length)
    with open(args.output, "w") as f:
        f.write(render(lanes, args.start, args.length, args.title))


if __name__ == "__main__":
    main()
