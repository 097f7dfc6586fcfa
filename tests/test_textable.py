"""Plain-text tables (cellaqm.textable): split by columns or wrapped to fit a width, never a cell cut."""

from __future__ import annotations

from cellaqm.textable import Column, Table, render


def table(n_measures: int = 6) -> Table:
    cols = [Column("case", key=True, wrap=True), Column("scheme", key=True)]
    cols += [Column(f"measure number {k} [kb/s]", right=True) for k in range(n_measures)]
    rows = [[f"R99 64k, file 250 kB {r}", s] + [f"{1000 * k + r:,} ± {k + 0.5}" for k in range(n_measures)]
            for r in range(3) for s in ("SACK+FACK on", "SACK+FACK off")]
    return Table("A title that is long enough to wrap at a narrow width, with words", cols, rows, {2, 4}, "a caption")


def cells_intact(t: Table, text: str) -> None:
    lines = text.splitlines()
    for row in t.rows:
        for col, cell in zip(t.columns, row):
            if col.wrap:
                assert all(any(w in line for line in lines) for w in cell.split()), cell
            else:
                assert any(cell in line for line in lines), cell
    assert "…" not in text


def test_a_table_that_fits_is_one_block_with_aligned_columns():
    t = table(2)
    text = render(t, 200)
    assert "part" not in text
    lines = text.splitlines()
    assert lines[0] == t.title
    header = next(line for line in lines if line.startswith("case"))
    rule = lines[lines.index(header) + 1]
    assert set(rule) <= {"─", " "} and len(rule) == max(len(x) for x in lines[1:-1])
    # The numbers are right-aligned: each ends where its rule ends.
    first = next(line for line in lines if line.startswith("R99 64k, file 250 kB 0  SACK+FACK on"))
    assert first.endswith("1,000 ± 1.5") and len(first) == len(rule)
    cells_intact(t, text)


def test_a_wide_table_splits_by_columns_repeating_the_labels():
    t = table(6)
    assert "part" not in render(t, 120)  # its headers wrapped, it fits
    for width in (60, 80, 100):
        text = render(t, width)
        assert "(part 1 of" in text
        assert all(len(line) <= width for line in text.splitlines()), width
        # Each part repeats every row's labels, in full.
        parts = text.count("(part ")
        assert text.count("R99 64k, file 250 kB 2") == 2 * parts  # two schemes per case, in every part
        assert text.count("SACK+FACK off") == 3 * parts
        cells_intact(t, text)


def test_at_a_narrow_width_labels_wrap_at_spaces_and_rows_are_set_apart():
    t = table(1)
    text = render(t, 40)
    assert all(len(line) <= 40 for line in text.splitlines())
    cells_intact(t, text)
    assert "\n\n" in text  # rows whose labels take two lines are separated by a blank line


def test_wrapping_columns_narrow_before_anything_else():
    cols = [Column("id", key=True), Column("statement", wrap=True), Column("verdict")]
    words = "a statement of many words " * 8
    t = Table("findings", cols, [["R1", words.strip(), "holds"], ["R2", "short", "inconclusive"]])
    text = render(t, 60)
    assert all(len(line) <= 60 for line in text.splitlines())
    assert "inconclusive" in text and "part" not in text
    cells_intact(t, text)


def test_a_word_longer_than_the_width_overflows_rather_than_being_cut():
    t = Table("t", [Column("label", key=True, wrap=True), Column("x", right=True)],
                 [["Supercalifragilisticexpialidocious-and-then-some", "1.5"]])
    text = render(t, 20)
    assert "Supercalifragilisticexpialidocious-and-then-some" in text and "1.5" in text
