"""CLEO protocol stack: selection table, seed conflicts, budgets, placeholders, registry."""
from __future__ import annotations

import datetime
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sarp.stack import (
    Overrides,
    Registry,
    StackError,
    Task,
    assemble,
    estimate_tokens,
    select,
)

REGISTRY = Registry()
TODAY = datetime.date(2026, 11, 21)


def task(**fields: Any) -> Task:
    return Task.model_validate({"id": "T100", "title": "Work item", **fields})


# (case, task fields, overrides, protocols loaded, rejected {protocol: reason fragment})
SELECTION: list[tuple[str, dict[str, Any], Overrides | None, list[str], dict[str, str]]] = [
    # every trigger kind
    ("default", {}, None, ["implementation"], {}),
    ("skill", {"skills": ["ct-research-agent"]}, None, ["research"], {}),
    ("skill with label", {"skills": ["ct-dev-workflow"], "labels": ["release"]}, None,
     ["release"], {}),
    ("skill without its label", {"skills": ["ct-dev-workflow"]}, None, ["implementation"],
     {}),
    ("label", {"labels": ["Investigate"]}, None, ["research"], {}),
    ("type as label", {"type": "spec"}, None, ["specification"], {}),
    ("epic context", {"epic_labels": ["contribution-protocol"]}, None, ["consensus"], {}),
    ("epic context camelCase", {"epicLabels": ["contribution-protocol"]}, None,
     ["consensus"], {}),
    ("description", {"description": "Please find out why the cache misses."}, None,
     ["research"], {}),
    ("title words count", {"title": "Break down the billing epic"}, None,
     ["decomposition"], {}),
    ("two compatible", {"labels": ["research", "consensus"]}, None,
     ["research", "consensus"], {}),
    # exclusion rules
    ("decomposition excludes implementation",
     {"labels": ["planning", "implementation"]}, None, ["decomposition"],
     {"implementation": "decomposition and implementation exclude each other"}),
    ("research excludes implementation (§4.2 over §6.1)",
     {"labels": ["research", "coding"]}, None, ["implementation"],
     {"research": "implementation and research exclude each other"}),
    ("release loads alone", {"labels": ["release", "research"]}, None, ["release"],
     {"research": "release loads alone"}),
    ("conflict group", {"labels": ["contribution"], "description": "version bump"}, None,
     ["contribution"], {"release": "loads alone and contribution is already loaded"}),
    ("not compatible with primary", {"labels": ["coding", "consensus"]}, None,
     ["implementation"], {"consensus": "not compatible with the primary protocol"}),
    ("two-protocol cap", {"labels": ["research", "consensus", "spec"]}, None,
     ["research", "specification"], {"consensus": "at most 2 conditional protocols"}),
    # overrides
    ("--protocol beats a label", {"labels": ["planning"]},
     Overrides(include=["implementation"]), ["implementation"],
     {"decomposition": "implementation and decomposition exclude each other"}),
    ("--protocol adds", {"labels": ["research"]}, Overrides(include=["specification"]),
     ["specification", "research"], {}),
    ("--no-protocol", {"labels": ["research", "consensus"]},
     Overrides(exclude=["consensus"]), ["research"], {"consensus": "--no-protocol"}),
    ("--no-protocol on the default", {}, Overrides(exclude=["implementation"]), [],
     {"implementation": "nothing detected"}),
    ("--only-protocol ignores detection", {"labels": ["research"]},
     Overrides(only=["release"]), ["release"], {}),
    ("--only-protocol keeps the order given", {},
     Overrides(only=["research", "implementation"]), ["research"],
     {"implementation": "exclude each other"}),
    ("--only-protocol wins over --protocol", {},
     Overrides(only=["research"], include=["consensus"]), ["research"],
     {"consensus": "--only-protocol chooses"}),
    ("--no-protocol on the only detected one leaves base", {"labels": ["research"]},
     Overrides(exclude=["research"]), [], {"research": "--no-protocol"}),
    # seed conflicts and matching choices
    ("stronger level wins over flowchart order",
     {"skills": ["ct-task-executor"], "labels": ["epic"]}, None, ["implementation"],
     {"decomposition": "exclude each other"}),
    ("a release word does not override a label",
     {"labels": ["coding"], "description": "Fix the memory release in the pool."}, None,
     ["implementation"], {"release": "loads alone and implementation is already loaded"}),
    ("labels match whole", {"labels": ["contribution-protocol"]}, None, ["consensus"], {}),
    ("words match whole", {"description": "Inspect the recreated index."}, None,
     ["implementation"], {}),
    ("asymmetric compatibility read both ways",
     {"labels": ["planning", "research"]}, None, ["decomposition", "research"], {}),
    ("lone contribution stays lone", {"labels": ["commit"]}, None, ["contribution"], {}),
]


@pytest.mark.parametrize(("case", "fields", "overrides", "loaded", "rejected"), SELECTION,
                         ids=[row[0] for row in SELECTION])
def test_selection(case: str, fields: dict[str, Any], overrides: Overrides | None,
                   loaded: list[str], rejected: dict[str, str]) -> None:
    selection = select(task(**fields), overrides, REGISTRY)
    assert selection.protocols == ["base", *loaded]
    refused = {d.protocol: d.reason for d in selection.decisions if not d.loaded}
    assert set(refused) == set(rejected)
    for name, fragment in rejected.items():
        assert fragment in refused[name], refused[name]


def test_selection_explains_itself() -> None:
    selection = select(task(labels=["research"], description="Please decide and vote."),
                       None, REGISTRY)
    assert selection.explain() == (
        "base: loaded (always) the lifecycle every subagent follows\n"
        "research: loaded (label) label 'research'; primary\n"
        "consensus: loaded (description) description word 'decide'; secondary")


def test_unknown_protocol_names_are_errors() -> None:
    with pytest.raises(StackError) as caught:
        select(task(), Overrides(include=["reserch"], exclude=["base"]), REGISTRY)
    assert [(d.code, d.message) for d in caught.value.diagnostics] == [
        ("SARP606", "no protocol named 'reserch'"), ("SARP606", "no protocol named 'base'")]


def build(budget: int, **kwargs: Any) -> Any:
    return assemble(task(labels=["research"], description="Compare token rotation."),
                    kwargs.pop("skill", None), budget, registry=REGISTRY,
                    values={"OUTPUT_DIR": "out"}, today=TODAY, **kwargs)


def test_prompt_parts_in_seed_order() -> None:
    prompt = build(20_000, skill="## Skill\n\nUse the web.\n\n## More\n\nDetails.")
    heads = [line for line in prompt.text.splitlines() if line.startswith("## ")]
    assert heads == ["## Task Context", "## Protocol Requirements", "## Skill Context",
                     "## Output Requirements"]
    assert "### Skill" in prompt.text and "### More" in prompt.text
    assert "### Base" in prompt.text and "### Research" in prompt.text
    assert "out/2026-11-21_work-item.md" in prompt.text
    assert '"Research complete. See MANIFEST.jsonl for summary."' in prompt.text
    assert "{{" not in prompt.text
    assert prompt.diagnostics == [] and prompt.strategy == "standard"
    assert prompt.tokens == estimate_tokens(prompt.text)


def test_budget_compression_says_what_was_cut() -> None:
    full = build(20_000).tokens
    prompt = build(full - 20)
    assert prompt.tokens <= full - 20 and prompt.strategy == "standard"
    assert [(d.code, d.message) for d in prompt.diagnostics] == [
        ("SARP601", "over budget: research section 'Method' removed")]
    assert "#### Method" not in prompt.text and "#### Rules" in prompt.text
    deeper = build(full - 110)
    cuts = [d.message for d in deeper.diagnostics]
    assert cuts[:3] == ["over budget: research section 'Method' removed",
                        "over budget: research section 'Anti-patterns' removed",
                        "over budget: base section 'Anti-patterns' removed"]
    assert deeper.tokens <= full - 110


def test_budget_minimal_fallback() -> None:
    minimal = build(20_000, overrides=Overrides(strategy="minimal"))
    assert "#### Examples" not in minimal.text and "#### Rules" in minimal.text
    compressed = build(minimal.tokens)
    assert compressed.strategy == "minimal" and compressed.tokens == minimal.tokens
    cuts = [(d.code, d.message) for d in compressed.diagnostics]
    after = cuts[[code for code, _ in cuts].index("SARP602") + 1:]
    assert after and all(code == "SARP601" and "removed (minimal strategy)" in message
                         for code, message in after)


def test_budget_that_cannot_fit() -> None:
    with pytest.raises(StackError) as caught:
        build(50)
    last = caught.value.diagnostics[-1]
    assert last.code == "SARP603" and last.message.endswith("the budget is 50")


def test_pluggable_counter() -> None:
    words = build(20_000, counter=lambda text: len(text.split()))
    assert words.tokens == len(words.text.split())


def test_unresolved_placeholder_is_an_error() -> None:
    with pytest.raises(StackError) as caught:
        assemble(task(), registry=REGISTRY, today=TODAY)
    assert [(d.code, d.message) for d in caught.value.diagnostics] == [
        ("SARP604", "placeholder {{OUTPUT_DIR}} has no value")]
    # a task field of that name fills it
    prompt = assemble(task(output_dir="docs/out"), registry=REGISTRY, today=TODAY)
    assert "docs/out/MANIFEST.jsonl" in prompt.text


def test_task_text_is_quoted_not_filled() -> None:
    prompt = assemble(task(description="Render {{NAME}} in the template."),
                      registry=REGISTRY, values={"OUTPUT_DIR": "o", "NAME": "x"}, today=TODAY)
    assert "Render {{NAME}} in the template." in prompt.text
    assert [(d.code, d.message) for d in prompt.diagnostics] == [
        ("SARP607", "the task text contains {{NAME}}; it is quoted as given")]


def test_placeholders_tolerate_case_and_spaces() -> None:
    prompt = assemble(task(), "Write to {{ output_dir }} on {{date}}.",
                      registry=REGISTRY, values={"OUTPUT_DIR": "o"}, today=TODAY)
    assert "Write to o on 2026-11-21." in prompt.text
    with pytest.raises(StackError) as caught:
        assemble(task(), "Ask {{ reviewer }}.", registry=REGISTRY,
                 values={"OUTPUT_DIR": "o"}, today=TODAY)
    assert [d.message for d in caught.value.diagnostics] == [
        "placeholder {{REVIEWER}} has no value"]


def test_protocol_over_its_own_budget_is_reported(tmp_path: Path) -> None:
    (tmp_path / "research.md").write_text(
        '+++\nname = "research"\nbudget = 5\nlabels = ["research"]\n[sections]\n'
        '"Rules" = 1\n+++\n## Rules\n\n- You MUST cite every source you used.\n')
    prompt = assemble(task(labels=["research"]), registry=Registry([tmp_path]),
                      values={"OUTPUT_DIR": "o"}, today=TODAY)
    assert [d.code for d in prompt.diagnostics] == ["SARP608"]
    assert prompt.diagnostics[0].message.startswith("protocol research is ")


def test_unreadable_and_mistyped_protocol_files(tmp_path: Path) -> None:
    (tmp_path / "binary.md").write_bytes(b"\xff\xfe+++\n")
    (tmp_path / "folder.md").mkdir()
    (tmp_path / "typed.md").write_text(
        '+++\nname = "typed"\nbudget = true\nalone = "false"\nconflict_group = 3\n'
        '[sections]\n"Rules" = 1\n+++\n## Rules\n\n- MUST.\n')
    with pytest.raises(StackError) as caught:
        Registry([tmp_path])
    problems = [d.message.split(": ", 1)[1] for d in caught.value.diagnostics]
    assert problems[0].startswith("cannot be read: 'utf-8' codec can't decode")
    assert problems[1:] == ["cannot be read: Is a directory", "'budget' is not a positive"
                            " integer", "'alone' is not true or false",
                            "'conflict_group' is not a string"]



def test_user_protocols_add_and_replace(tmp_path: Path) -> None:
    (tmp_path / "research.md").write_text(
        '+++\nname = "research"\nbudget = 100\nlabels = ["dig"]\n[sections]\n"Rules" = 1\n'
        "+++\n## Rules\n\n- You MUST dig.\n")
    (tmp_path / "audit.md").write_text(
        '+++\nname = "audit"\nbudget = 100\npriority = 9\nlabels = ["audit"]\n'
        '[sections]\n"Rules" = 1\n+++\n## Rules\n\n- You MUST audit.\n')
    registry = Registry([tmp_path])
    # same level: the lower `priority` leads (the replacement has the default, 50)
    assert select(task(labels=["dig", "audit"]), None, registry).protocols == [
        "base", "audit", "research"]
    assert select(task(labels=["research"]), None, registry).protocols == [
        "base", "implementation"]  # the replacement no longer triggers on "research"


def test_bad_protocol_files_report_every_problem(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("no front matter\n")
    (tmp_path / "b.md").write_text(
        '+++\nname = "B"\nbudget = -1\nlabels = "x"\n[sections]\n"Gone" = 9\n+++\n'
        "## Rules\n\ntext\n")
    with pytest.raises(StackError) as caught:
        Registry([tmp_path])
    assert [d.message.split(": ", 1)[1] for d in caught.value.diagnostics] == [
        "has no +++ front matter",
        "'name' is not a lower-case word",
        "'budget' is not a positive integer",
        "'sections' is not a table of heading = priority 1..6",
        "section 'Rules' has no priority in [sections]",
        "'labels' is not a list of strings",
    ]


def test_shipped_protocols_are_well_formed() -> None:
    assert sorted(REGISTRY.protocols) == [
        "base", "consensus", "contribution", "decomposition", "implementation", "release",
        "research", "specification"]
    for protocol in REGISTRY.protocols.values():
        titles = [s.title for s in protocol.sections]
        assert "Rules" in titles and "MUST" in protocol.sections[titles.index("Rules")].body
        text = "\n".join(s.body for s in protocol.sections)
        assert estimate_tokens(text) <= protocol.budget, protocol.name


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    from sarp.cli.main import main

    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_stack(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    task_file = tmp_path / "task.json"
    task_file.write_text('{"id": "T7", "title": "Plan the epic", "labels": ["planning"],'
                         ' "output_dir": "out"}')
    code, out, err = run_cli(capsys, "stack", str(task_file), "--protocol",
                             "implementation,research", "--explain")
    assert (code, err) == (0, "")
    assert out.splitlines() == [
        "base: loaded (always) the lifecycle every subagent follows",
        "implementation: loaded (explicit) --protocol; primary",
        "research: rejected (explicit) --protocol; implementation and research exclude"
        " each other",
        "decomposition: rejected (label) label 'planning'; implementation and decomposition"
        " exclude each other",
        f"tokens: {out.splitlines()[-1].split()[1]} of 20000 (standard)",
    ]
    code, out, err = run_cli(capsys, "stack", str(task_file))
    assert code == 0 and out.startswith("## Task Context\n\n**T7**: Plan the epic\n")
    assert "### Decomposition" in out and err == ""
    code, out, err = run_cli(capsys, "stack", str(task_file), "--budget", "40")
    assert code == 1 and out == "" and "SARP603" in err
    code, _, err = run_cli(capsys, "stack", str(task_file), "--no-protocol", "nope")
    assert code == 2 and "SARP606 no protocol named 'nope'" in err
    code, _, err = run_cli(capsys, "stack", str(task_file), "--set", "novalue")
    assert code == 2 and "--set 'novalue' is not NAME=VALUE" in err
    task_file.write_text("[1, 2]")
    assert run_cli(capsys, "stack", str(task_file))[0] == 2



def test_cli_stack_help_says_skill_is_a_file(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _err = run_cli(capsys, "stack", "--help")
    assert code == 0
    # the option's entry runs from `--skill ` to the next option, wrapped to the terminal
    entry = " ".join(out.split("--skill ", 1)[1].split("--", 1)[0].split())
    assert entry == "FILE A skill file (Markdown) whose text becomes the prompt's Skill Context."


@pytest.mark.parametrize(("task_text", "problem"), [
    ("[1, 2]", "a task must be a JSON object"),
    ('"T7"', "a task must be a JSON object"),
    ("null", "a task must be a JSON object"),
    ("{not json", "not JSON (expecting property name enclosed in double quotes at line 1,"
                  " column 2)"),
    ("", "not JSON (expecting value at line 1, column 1)"),
    ('{"labels": "research"}', "labels: must be a list"),
    ('{"title": 5, "labels": ["ok", 1]}', "title: must be a string; labels[1]: must be a string"),
    ('{"epicLabels": {}}', "epicLabels: must be a list"),
])
def test_cli_stack_names_what_is_wrong_with_the_task(task_text: str, problem: str,
                                                     tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    """One line in sarp's words (file, field path, problem), not pydantic's report."""
    task_file = tmp_path / "t1.json"
    task_file.write_text(task_text, encoding="utf-8")
    assert run_cli(capsys, "stack", str(task_file)) == (
        2, "", f"sarp: error: {task_file}: {problem}\n")

TRIGGER_WORDS = sorted({word for p in REGISTRY.protocols.values()
                        for word in (*p.labels, *p.keywords, *p.skills, *p.epic_labels)})
NAMES = sorted(p.name for p in REGISTRY.conditional())


@given(labels=st.lists(st.sampled_from(TRIGGER_WORDS), max_size=5),
       skills=st.lists(st.sampled_from(TRIGGER_WORDS), max_size=2),
       words=st.lists(st.sampled_from(TRIGGER_WORDS), max_size=5),
       include=st.lists(st.sampled_from(NAMES), max_size=3, unique=True),
       exclude=st.lists(st.sampled_from(NAMES), max_size=2, unique=True))
def test_selection_invariants(labels: list[str], skills: list[str], words: list[str],
                              include: list[str], exclude: list[str]) -> None:
    selection = select(task(labels=labels, skills=skills, description=" ".join(words)),
                       Overrides(include=include, exclude=exclude), REGISTRY)
    loaded = selection.protocols[1:]
    assert selection.protocols[0] == "base" and len(loaded) <= 2
    assert not set(loaded) & set(exclude)
    for a in loaded:
        for b in loaded:
            if a != b:
                pa, pb = REGISTRY[a], REGISTRY[b]
                assert b not in pa.excludes and not pa.alone
                assert pa.conflict_group != pb.conflict_group
    # every protocol considered is explained exactly once
    explained = [d.protocol for d in selection.decisions]
    assert len(explained) == len(set(explained)) and set(loaded) <= set(explained)
