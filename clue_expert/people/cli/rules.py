"""``rules``: list, check, scaffold, test and export rule files."""
from __future__ import annotations

import difflib
import json
import re
import sys
from pathlib import Path
from ...core.cards import get_edition
from ...core.errors import ClueError, RuleFileError
from ...core.paths import templates_dir
from ...engine import CLIPS_VERSION, export_program
from ...engine import export_player
from ...engine import DEFAULT_LEVEL, get_level
from ...engine import ID_PATTERN, check_edition
from ...engine import function_reference
from ...engine import all_rules, load_ruleset, rule_files, written_clash
from ...play.players import (FOLDERS, load_decisions)
from ...testing.scenarios import run_rule_file
from ..render import (RulesView)
from .common import check_writable, command_console
from .options import common


#: The kinds ``rules --new KIND NAME`` writes a starting file of.
NEW_KINDS = ("strategy", "response", "accusation", "model", "deduction")


def _new_rules(args) -> int:
    """``rules --new KIND NAME``: a commented starting rule file ``NAME.yaml``
    and its scenario file ``NAME.test.yaml``, which pass ``rules --test`` as written."""
    kind, name = args.new
    if kind not in NEW_KINDS:
        near = difflib.get_close_matches(kind, NEW_KINDS, n=1, cutoff=0.5)
        raise ClueError(f"rules --new: no starting file of the kind {kind!r}; the kinds: {', '.join(NEW_KINDS)}"
                        + (f"; did you mean {near[0]}?" if near else ""))
    if args.files or args.test:
        raise ClueError("rules --new writes new files: give no other FILE and no --test")
    target = Path(name[:-5] if name.endswith(".yaml") else name)
    rid = target.name
    if not re.fullmatch(ID_PATTERN, rid) or len(rid) > 60:
        raise ClueError(f"rules --new: {rid!r} cannot be a rule-file id: write lower-case words joined by '-', "
                        f"like my-strategy")
    rules, tests = target.with_name(rid + ".yaml"), target.with_name(rid + ".test.yaml")
    for path in (rules, tests):
        if path.exists():
            raise ClueError(f"rules --new: {path} exists; not overwritten")
        check_writable(str(path))
    for template, path in ((f"{kind}.yaml", rules), (f"{kind}.test.yaml", tests)):
        text = (templates_dir() / template).read_text(encoding="utf-8").replace("NAME", rid)
        path.write_text(text, encoding="utf-8")
    print(f"wrote {rules} and {tests}")
    print(f"check it:   clue-expert rules {rules}")
    print(f"test it:    clue-expert rules --test {rules}")
    return 0


def cmd_rules(args) -> int:
    if args.functions:
        print(function_reference(), end="")  # docs/rule-functions.md
        return 0
    if args.new:
        return _new_rules(args)
    if args.test:
        return _test_rules(args)
    if args.export:
        return _export_rules(args)
    if args.files:
        rulesets = [load_ruleset(p) for p in args.files]
        edition = get_edition(args.edition or "cluedo")
        for rs in rulesets:  # literal cards and categories, against one edition
            check_edition(rs, edition)
    else:
        folders = {"deduction": "deduction", **FOLDERS}
        kinds = [args.kind] if args.kind else list(folders)
        rulesets = [load_ruleset(p) for k in kinds for p in rule_files(folders[k])]
    clash = written_clash(rulesets)  # a rule id is written once (extends/include bring rules in, not copies)
    if clash:
        rule, other = clash
        raise RuleFileError(rule.path, rule.id, f"rule id already used in {other}")
    if args.json:
        out = [{"id": r.id, "ruleset": rs.id, "kind": rs.kind, "file": Path(rs.path).name, "group": r.group,
                "priority": r.priority, "when": list(r.on), "message": r.message, "metadata": r.metadata,
                "from": Path(r.path).name, "match": not r.shorthand}
               for rs in rulesets for r in rs.rules]
        print(json.dumps(out))
    else:
        command_console(args).print(RulesView(rulesets))
    return 0


def _export_rules(args) -> int:
    """``rules --export clips FILE``: the deduction rules (FILE... given, else
    the ``--knowledge`` level's) as a plain CLIPS program."""
    fmt, path = args.export
    if fmt != "clips":
        raise ClueError(f"rules --export: unknown format {fmt[:40]!r}; the format is clips")
    check_writable(path)
    if args.files:
        rulesets = [load_ruleset(p) for p in args.files]
        title = ", ".join(rs.id for rs in rulesets)
    else:
        level = get_level(args.knowledge)
        rulesets = list(level.rulesets())
        title = f"the deduction rules of knowledge level {level.id}"
    rules = all_rules(rulesets)
    if args.strategy:
        strategy = load_decisions("strategy", args.strategy)
        program = export_player(rules, strategy, f"{title}, and the strategy {strategy.id}")
    else:
        program = export_program(rules, title=title)
    Path(path).write_text(program, encoding="utf-8")
    if args.strategy:
        print(f"wrote {len(rules)} rules and the strategy {args.strategy} to {path} (stock CLIPS, 6.30 or "
              f"{CLIPS_VERSION}: (load \"{Path(path).name}\") (reset) (load-facts \"facts.clp\") (run))")
        if not args.files and get_level(args.knowledge).completion:
            print(f"note: the case analysis (SAT) of level {args.knowledge} is not part of the program: compare "
                  f"with deduce --no-complete, or export --knowledge kingston or mitchell", file=sys.stderr)
        return 0
    print(f"wrote {len(rules)} rules to {path} (CLIPS {CLIPS_VERSION}: (load \"{Path(path).name}\") "
          f"(load-facts \"facts.clp\") (run))")
    return 0


def _test_rules(args) -> int:
    """``rules --test FILE...``: each file's scenarios, one line each; 0 when all
    pass, 1 when any fails (2, bad input, is a file that cannot be read)."""
    if not args.files:
        raise ClueError("rules --test needs the rule files to test")
    edition = get_edition(args.edition) if args.edition else None
    passed = failed = 0
    for path in args.files:
        ruleset, outcomes = run_rule_file(path, args.engine)
        if edition is not None:
            check_edition(ruleset, edition)
        for o in outcomes:
            if o.passed:
                print(f"PASS {o.label}")
            else:
                print(f"FAIL {o.label} — {o.reason}")
        ok = sum(o.passed for o in outcomes)
        passed, failed = passed + ok, failed + len(outcomes) - ok
        if len(args.files) > 1:
            print(f"{path}: {ok} passed, {len(outcomes) - ok} failed")
    print(f"{passed + failed} checks: {passed} passed, {failed} failed"
          + ("" if failed else " — all pass"))
    return 1 if failed else 0


def add_rules(sub) -> None:
    """The ``rules`` command's parser."""
    p = sub.add_parser("rules", help="list every rule with its id and message")
    p.add_argument("files", nargs="*", metavar="FILE", help="rule files to validate and list (default: shipped)")
    p.add_argument("--export", nargs=2, metavar=("FORMAT", "OUT"),
                   help="write the deduction rules (the FILEs, else the --knowledge level's) as a plain CLIPS "
                        "program: --export clips kb.clp (docs/classroom.md)")
    p.add_argument("--knowledge", default=DEFAULT_LEVEL, metavar="LEVEL",
                   help=f"with --export: the level whose deduction rules to write (default {DEFAULT_LEVEL})")
    p.add_argument("--strategy", metavar="ID",
                   help="with --export clips: the strategy too, as production rules that assert the "
                        "suggestion: a whole player in plain CLIPS (docs/clips.md)")
    p.add_argument("--kind", choices=["deduction", *FOLDERS],
                   help="only shipped rules of this kind")
    p.add_argument("--edition", metavar="ID|FILE",
                   help="check the files' literal cards and categories against this edition (default cluedo)")
    p.add_argument("--test", action="store_true",
                   help="run each FILE's scenarios (FILE.test.yaml beside it); exit 1 if any fails")
    p.add_argument("--functions", action="store_true",
                   help="print the reference of every rule function (Markdown; docs/rule-functions.md)")
    p.add_argument("--new", nargs=2, metavar=("KIND", "NAME"),
                   help=f"write a commented starting rule file NAME.yaml and its scenarios NAME.test.yaml "
                        f"(KIND: {', '.join(NEW_KINDS)}); they pass --test as written")
    common(p)
    p.set_defaults(func=cmd_rules)
