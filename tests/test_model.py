"""`build`, the fast constructor: records built from the same field names share one
fields set, and no way of using a record can see that they do."""
from __future__ import annotations

import copy
import pickle

import pytest
from pydantic import BaseModel

from sarp.model import Conformance, Finding, Location, Result, Severity, Status, build


def two_findings() -> tuple[Finding, Finding]:
    return (build(Finding, id="F1", severity=Severity.MAJOR, title="one"),
            build(Finding, id="F2", severity=Severity.MINOR, title="two"))


def test_built_records_report_the_fields_they_were_given() -> None:
    first, _ = two_findings()
    assert first.model_fields_set == {"id", "severity", "title"}
    assert first.model_dump(exclude_unset=True) == {"id": "F1", "severity": Severity.MAJOR,
                                                     "title": "one"}


def test_assigning_a_field_marks_it_set_on_that_record_only() -> None:
    first, second = two_findings()
    first.description = "more"
    assert first.model_fields_set == {"id", "severity", "title", "description"}
    assert second.model_fields_set == {"id", "severity", "title"}
    assert build(Finding, id="F3", severity=Severity.MINOR,
                 title="three").model_fields_set == {"id", "severity", "title"}


def test_changing_the_returned_fields_set_changes_no_other_record() -> None:
    first, second = two_findings()
    first.model_fields_set.add("impact")
    assert "impact" not in second.model_fields_set


def test_copies_pickles_and_updates_get_their_own_fields_set() -> None:
    first, second = two_findings()
    updated = first.model_copy(update={"impact": "breaks"})
    assert updated.model_fields_set == {"id", "severity", "title", "impact"}
    assert first.model_fields_set == second.model_fields_set == {"id", "severity", "title"}
    for clone in (pickle.loads(pickle.dumps(first)), copy.deepcopy(first), copy.copy(first)):
        assert clone == first
        clone.suggestion = "fix it"
        assert "suggestion" not in second.model_fields_set


def test_list_and_dict_defaults_are_new_objects_per_record() -> None:
    one = build(Result, dialect="json", status=Status.CLEAN, conformance=Conformance.CONFORMANT)
    two = build(Result, dialect="json", status=Status.CLEAN, conformance=Conformance.CONFORMANT)
    one.findings.append(build(Finding, id="F1", severity=Severity.MINOR))
    one.metrics["files"] = 3
    assert two.findings == [] and two.metrics == {}


def test_validated_records_are_unchanged() -> None:
    loc = Location(raw="a.py:3", path="a.py", line=3)
    assert loc.model_fields_set == {"raw", "path", "line"}
    loc.end_line = 4
    assert loc.model_fields_set == {"raw", "path", "line", "end_line"}


def test_pickled_records_each_get_their_own_fields_set() -> None:
    first, second = pickle.loads(pickle.dumps(list(two_findings())))
    first.impact = "breaks"
    assert second.model_fields_set == {"id", "severity", "title"}
    assert second.model_dump(exclude_unset=True) == {"id": "F2", "severity": Severity.MINOR,
                                                      "title": "two"}


def test_the_deprecated_fields_set_spelling_is_served_unshared() -> None:
    first, second = two_findings()
    with pytest.warns(DeprecationWarning) as warned:
        first.__fields_set__.add("impact")
    assert warned[0].filename == __file__  # the warning names the caller's line
    assert "impact" not in second.model_fields_set


def test_a_shared_fields_set_refuses_to_change() -> None:
    first, _ = two_findings()
    with pytest.raises(TypeError, match="shared"):
        first.__pydantic_fields_set__.add("impact")
    with pytest.raises(TypeError, match="shared"):
        first.__pydantic_fields_set__ |= {"impact"}
    with pytest.raises(TypeError, match="shared"):
        first.__pydantic_fields_set__.__init__(["impact"])


def test_models_other_than_sarp_records_get_their_own_fields_set() -> None:
    class Plain(BaseModel):
        name: str = ""
        size: int = 0

    one, two = build(Plain, name="a"), build(Plain, name="b")
    one.size = 3
    assert two.model_fields_set == {"name"}
