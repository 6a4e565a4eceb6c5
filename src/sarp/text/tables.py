# Pipe tables: find them among a document's lines and split their rows into cells.
#
# Strategy:
# - A table is a header row, a delimiter row (`|---|:--:|`), then body rows; every row
#   is a plain (unfenced) line holding a pipe. A table ends at the first line that is
#   not a row. Without a delimiter row there is no table (a line with pipes in prose
#   stays prose).
# - Cells split on unescaped pipes. The fast path (no backslash) is one `str.split`;
#   with backslashes the row is walked once by `str.find`. Leading and trailing pipes
#   are optional, as in GFM.
# - Each row remembers whether it ended with a pipe while the header did: a last row
#   that lost its closing pipe is the mark of a reply cut off mid-row.
from __future__ import annotations

from dataclasses import dataclass, field

from sarp.text.lines import PLAIN, Document

__all__ = ["Row", "Table", "find_tables", "split_row"]


def split_row(line: str) -> list[str]:
    """Cells of one table row, stripped, with `\\|` unescaped."""
    text = line.strip()
    if text.startswith("|"):
        text = text[1:]
    if text.endswith("|") and not text.endswith("\\|"):
        text = text[:-1]
    if "\\" not in text:
        return [cell.strip() for cell in text.split("|")]
    cells: list[str] = []
    current: list[str] = []
    pos = 0
    while True:
        bar = text.find("|", pos)
        if bar < 0:
            current.append(text[pos:])
            break
        if bar > 0 and text[bar - 1] == "\\":
            current.append(text[pos : bar - 1] + "|")
        else:
            current.append(text[pos:bar])
            cells.append("".join(current).strip())
            current = []
        pos = bar + 1
    cells.append("".join(current).strip())
    return cells


def _is_delimiter(line: str) -> bool:
    text = line.strip().strip("|").replace(" ", "").replace("\t", "")
    if not text or "-" not in text:
        return False
    return all(ch in "-:|" for ch in text)


@dataclass(slots=True)
class Row:
    line: int  # 0-based line index in the document
    cells: list[str]
    closed: bool  # ends with a pipe


@dataclass(slots=True)
class Table:
    header_line: int
    header: list[str]
    rows: list[Row] = field(default_factory=list)
    closed_rows: bool = True  # the header ends with a pipe

    @property
    def end(self) -> int:
        """Index of the last line of the table."""
        return self.rows[-1].line if self.rows else self.header_line + 1

    def column_keys(self) -> list[str]:
        """Header names, lower-cased and without markup, for matching by name."""
        return [cell.replace("*", "").replace("`", "").strip().lower() for cell in self.header]


def find_tables(doc: Document, start: int = 0, end: int | None = None) -> list[Table]:
    """Every table whose header lies in lines [start, end).

    The document is scanned once; later calls (dialects ask for tables in several
    sections) filter that list.
    """
    found = doc.cache.get("tables")
    if found is None:
        found = doc.cache["tables"] = _scan_tables(doc)
    stop = len(doc.lines) if end is None else end
    tables: list[Table] = found  # type: ignore[assignment]
    return [t for t in tables if start <= t.header_line < stop]


def _scan_tables(doc: Document) -> list[Table]:
    lines, kinds = doc.lines, doc.kinds
    stop = len(lines)
    tables: list[Table] = []
    i = 0
    while i < stop - 1:
        line = lines[i]
        if kinds[i] != PLAIN or "|" not in line or kinds[i + 1] != PLAIN:
            i += 1
            continue
        if not _is_delimiter(lines[i + 1]):
            i += 1
            continue
        stripped = line.rstrip()
        table = Table(header_line=i, header=split_row(line), closed_rows=stripped.endswith("|"))
        j = i + 2
        while j < len(lines) and kinds[j] == PLAIN and "|" in lines[j]:
            row_text = lines[j].rstrip()
            if row_text.lstrip().startswith(">"):
                break
            table.rows.append(Row(j, split_row(row_text), row_text.endswith("|")))
            j += 1
        tables.append(table)
        i = j
    return tables
