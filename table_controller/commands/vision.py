"""``table-controller vision``: the overhead camera.

- ``vision enroll FOLDER --deck NAME``: enrol a deck from ``As.png`` ... ``back.png`` (and its
  jokers, ``joker.png``, ``joker2.png``, ... when present);
  ``vision enroll --camera SOURCE --deck NAME [--jokers N]``: enrol card by card from the camera.
- ``vision detect IMAGE... --deck NAME [--json]``: find and read every card of each image;
  ``--json`` prints one line per image:
  ``{"image": PATH, "cards": [{"card": "As", "back" or "joker", "corners": [[x, y], ...4]}]}``.
- ``vision calibrate [--config FILE] [--source SRC | --image IMAGE] --out PNG``: save a frame
  with the zones (and the cards seen, with ``--deck``) drawn on it; ``--print-zones`` prints the
  zones as TOML for the configuration.

OpenCV is imported inside ``run`` only.
"""

from __future__ import annotations

import argparse
import json
import sys


def configure(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="vision_command", metavar="SUBCOMMAND", required=True)
    store_help = "deck store folder (default $TABLE_CONTROLLER_DECKS or ~/.local/share/...)"

    enroll = sub.add_parser("enroll", help="enrol a deck's faces and back",
                            description="Enrol a deck from a folder of card images or the camera.")
    enroll.add_argument("folder", nargs="?", help="folder with As.png ... Kc.png and back.png "
                        "(optionally joker.png, joker2.png, ...)")
    enroll.add_argument("--deck", required=True, help="name to enrol the deck under")
    enroll.add_argument("--camera", metavar="SOURCE",
                        help="enrol card by card from this camera source instead of a folder")
    enroll.add_argument("--jokers", type=int, default=0, metavar="N",
                        help="with --camera: also capture N joker designs (default 0)")
    enroll.add_argument("--store", help=store_help)
    enroll.add_argument("--partial", action="store_true", help="accept a folder missing cards")

    detect = sub.add_parser("detect", help="find and read the cards in images",
                            description="Find every card in each image and read it.")
    detect.add_argument("images", nargs="+", metavar="IMAGE")
    detect.add_argument("--deck", required=True, help="enrolled deck name")
    detect.add_argument("--store", help=store_help)
    detect.add_argument("--config", help="table configuration (TOML) with a [vision] table")
    detect.add_argument("--json", action="store_true", help="one JSON line per image")

    cal = sub.add_parser("calibrate", help="save a frame with the zones drawn, to check",
                         description="Draw the configured zones on a camera frame.")
    cal.add_argument("--config", help="table configuration (TOML) with a [vision] table")
    cal.add_argument("--source", help="camera source (default: the configuration's)")
    cal.add_argument("--image", help="use this picture instead of the camera")
    cal.add_argument("--deck", help="also detect and label cards with this enrolled deck")
    cal.add_argument("--store", help=store_help)
    cal.add_argument("--out", default="calibration.png", help="PNG to write")
    cal.add_argument("--print-zones", action="store_true",
                     help="print the zones as a [vision.zones] TOML table")
    cal.add_argument("--empty", nargs="+", metavar="IMAGE",
                     help="frames of the empty table: learn the cloth (any colour and print) "
                     "under the room's light")
    cal.add_argument("--cards", metavar="IMAGE",
                     help="a frame of at least 3 cards laid apart: learn the table's plane "
                     "(perspective); needs --empty and --deck (the deck's card shape)")
    cal.add_argument("--save-table", metavar="FILE",
                     help="with --empty: write the table's calibration here (.npz; the "
                     "configuration's [vision] table = FILE uses it)")


def _store(args: argparse.Namespace) -> str:
    from vision.templates import default_store

    return str(args.store) if args.store else str(default_store())


def _enroll(args: argparse.Namespace) -> int:
    from vision.sources import FrameSourceError, open_source
    from vision.templates import (
        EnrolmentError,
        enroll_from_folder,
        enroll_from_source,
        save_deck,
    )

    if args.jokers and not args.camera:
        print("vision enroll: --jokers is for --camera; a folder's jokers are its joker*.png",
              file=sys.stderr)
        return 2
    try:
        if args.camera:
            source = open_source(args.camera)

            def ask(label: str) -> bool:
                what = ("the back (any card face down)" if label == "back"
                        else f"joker design {label[5:] or 1} face up" if label.startswith("joker")
                        else label + " face up")
                try:
                    input(f"lay {what} alone under the camera and press Enter (Ctrl-D to stop) ")
                except EOFError:
                    return False
                return True

            def read() -> object:
                frame = source.read()
                return None if frame is None else frame.image

            try:
                deck = enroll_from_source(read, args.deck, ask,  # type: ignore[arg-type]
                                          jokers=args.jokers)
            finally:
                source.close()
        elif args.folder:
            deck = enroll_from_folder(args.folder, args.deck, allow_partial=args.partial)
        else:
            print("vision enroll: give a FOLDER or --camera SOURCE", file=sys.stderr)
            return 2
        folder = save_deck(deck, _store(args))
    except (EnrolmentError, FrameSourceError, OSError) as exc:
        print(f"vision enroll: {exc}", file=sys.stderr)
        return 1
    jokers = f", {len(deck.jokers)} joker(s)" if deck.jokers else ""
    print(f"enrolled deck {deck.name!r}: {len(deck.faces)} faces, the back{jokers}, in {folder}")
    return 0


def _detect(args: argparse.Namespace) -> int:
    import cv2

    from vision.analyse import FrameAnalyser
    from vision.calibration import CalibrationError, load_config
    from vision.detect import DetectorConfig, FrameError
    from vision.empty_table import EmptyTable, TableCalibrationError
    from vision.recognise import Recogniser
    from vision.templates import EnrolmentError, load_deck

    try:
        recogniser = Recogniser(load_deck(args.deck, _store(args)))
        config = load_config(args.config) if args.config else None
        layout = config.layout if config else None
        table = EmptyTable.load(config.table) if config and config.table else None
    except (EnrolmentError, CalibrationError, TableCalibrationError) as exc:
        print(f"vision detect: {exc}", file=sys.stderr)
        return 1
    analyser = FrameAnalyser(recogniser, layout=layout,
                             detector=DetectorConfig(card_height=layout.card_height)
                             if layout else DetectorConfig(), table=table)
    status = 0
    for path in args.images:
        image = cv2.imread(path, cv2.IMREAD_COLOR)
        if image is None:
            print(f"vision detect: {path}: not a readable image", file=sys.stderr)
            status = 1
            continue
        try:
            seen = analyser.analyse(image)
        except FrameError as exc:
            print(f"vision detect: {path}: {exc}", file=sys.stderr)
            status = 1
            continue
        except (cv2.error, ValueError, ArithmeticError, MemoryError) as exc:
            # Whatever one picture does to the analysis, the other pictures are still read.
            print(f"vision detect: {path}: cannot be analysed ({type(exc).__name__}: {exc})",
                  file=sys.stderr)
            status = 1
            continue
        if args.json:
            print(json.dumps({"image": path, "cards": [s.to_json() for s in seen]}))
        else:
            names = " ".join(f"{s.label}@{s.zone or '-'}" for s in seen) or "(no cards)"
            print(f"{path}: {names}")
    return status


def _calibrate(args: argparse.Namespace) -> int:
    import cv2

    from vision.analyse import FrameAnalyser, SeenCard
    from vision.calibration import CalibrationError, draw_zones, load_config, zones_toml
    from vision.recognise import Recogniser
    from vision.sources import FrameSourceError, open_source
    from vision.templates import EnrolmentError, load_deck

    try:
        config = load_config(args.config)
    except CalibrationError as exc:
        print(f"vision calibrate: {exc}", file=sys.stderr)
        return 1
    if args.print_zones:
        print(zones_toml(config.layout), end="")
        return 0
    if args.empty:
        return _calibrate_table(args, config)
    if args.image:
        image = cv2.imread(args.image, cv2.IMREAD_COLOR)
        if image is None:
            print(f"vision calibrate: {args.image}: not a readable image", file=sys.stderr)
            return 1
    else:
        try:
            source = open_source(args.source or config.source)
            try:
                frame = source.read()
            finally:
                source.close()
        except FrameSourceError as exc:
            print(f"vision calibrate: {exc}", file=sys.stderr)
            return 1
        if frame is None:
            print("vision calibrate: the camera gave no frame", file=sys.stderr)
            return 1
        image = frame.image
    seen: list[SeenCard] = []
    if args.deck:
        try:
            recogniser = Recogniser(load_deck(args.deck, _store(args)))
        except EnrolmentError as exc:
            print(f"vision calibrate: {exc}", file=sys.stderr)
            return 1
        seen = FrameAnalyser(recogniser, layout=config.layout).analyse(image)
    if not cv2.imwrite(args.out, draw_zones(image, config.layout, seen)):
        print(f"vision calibrate: cannot write {args.out}", file=sys.stderr)
        return 1
    print(f"wrote {args.out}: {len(config.layout.zones)} zones"
          + (f", {len(seen)} cards" if args.deck else ""))
    return 0


def _calibrate_table(args: argparse.Namespace, config: object) -> int:
    """``calibrate --empty ...``: learn the empty table (and with ``--cards`` its plane), save
    it, and write the picture of what the camera will ignore with the zones on it."""
    import cv2

    from vision.calibration import VisionConfig, draw_zones
    from vision.empty_table import LAID, TableCalibrationError, calibrate_table
    from vision.layout import CARD_ASPECT
    from vision.templates import EnrolmentError, load_deck

    assert isinstance(config, VisionConfig)
    frames = []
    for path in [*args.empty, *([args.cards] if args.cards else [])]:
        image = cv2.imread(path, cv2.IMREAD_COLOR)
        if image is None:
            print(f"vision calibrate: {path}: not a readable image", file=sys.stderr)
            return 1
        frames.append(image)
    aspect = CARD_ASPECT
    deck = None
    if args.cards:
        if not args.deck:
            print("vision calibrate: --cards needs --deck (the deck's card shape)",
                  file=sys.stderr)
            return 2
        try:
            deck = load_deck(args.deck, _store(args))
        except EnrolmentError as exc:
            print(f"vision calibrate: {exc}", file=sys.stderr)
            return 1
        aspect = deck.aspect
    empty = frames[: len(args.empty)]
    try:
        table = calibrate_table(empty, frames[-1] if args.cards else None, aspect=aspect)
    except TableCalibrationError as exc:
        print(f"vision calibrate: {exc}", file=sys.stderr)
        return 1
    if args.save_table:
        table.save(args.save_table)
    picture = draw_zones(table.ignored(), config.layout)
    if not cv2.imwrite(args.out, picture):
        print(f"vision calibrate: cannot write {args.out}", file=sys.stderr)
        return 1
    plane = "and its plane " if table.plane is not None else ""
    print(f"learned the empty table {plane}from {len(frames)} frame(s); wrote {args.out} "
          "(what the camera ignores: the cloth, its print tinted)"
          + (f" and {args.save_table}" if args.save_table else ""))
    if deck is not None and table.laid is not None:
        from vision.recognise import Recogniser

        light = Recogniser(deck).room_light(table.laid)
        count = table.laid.shape[0] // LAID[1]
        if light is None:
            print(f"the room's light on the cards: not measured (the {count} cards laid do not "
                  f"read as the backs of deck {deck.name!r}: lay backs of the deck in play)")
        else:
            blue, green, red = (float(v) for v in light)
            print(f"the room's light on the {count} backs laid, undone before face or back is "
                  f"decided: gains blue {blue:.2f}, green {green:.2f}, red {red:.2f}")
    return 0


def run(args: argparse.Namespace) -> int:
    command = args.vision_command
    if command == "enroll":
        return _enroll(args)
    if command == "detect":
        return _detect(args)
    return _calibrate(args)
