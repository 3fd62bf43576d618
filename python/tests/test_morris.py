"""Tests of the Python package against small databases solved here by the
``morris`` binary (six whole, about 2 s; six's moving phase alone, for the
placement search). The binary is $MORRIS_BIN, else the root crate's
target/release/morris or target/debug/morris."""

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

import morris

ROOT = Path(__file__).resolve().parents[2]


def morris_bin() -> str:
    if os.environ.get("MORRIS_BIN"):
        return os.environ["MORRIS_BIN"]
    for profile in ("release", "debug"):
        path = ROOT / "target" / profile / "morris"
        if path.exists():
            return str(path)
    pytest.fail("no morris binary: build it (cargo build) or set MORRIS_BIN")


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([morris_bin(), *args], capture_output=True, text=True)


@pytest.fixture(scope="session")
def six_dir(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("six")
    done = run("--variant", "six", "--db", str(path), "solve", "--threads", "2")
    assert done.returncode == 0, done.stderr
    return path


@pytest.fixture(scope="session")
def six_moving_dir(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("six-moving")
    done = run(
        "--variant", "six", "--db", str(path), "solve", "--phase", "moving", "--threads", "2"
    )
    assert done.returncode == 0, done.stderr
    return path


@pytest.fixture(scope="session")
def six(six_dir) -> morris.Database:
    return morris.Database(six_dir, variant="six")


def query_json(db_dir: Path, position: str) -> dict:
    done = run("--variant", "six", "--db", str(db_dir), "query", position, "--json")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def cli_error(db_dir: Path, *args: str) -> str:
    done = run("--db", str(db_dir), *args)
    assert done.returncode == 1
    assert done.stderr.startswith("morris: error: ")
    return done.stderr[len("morris: error: "):].rstrip("\n")


def some_positions(count: int = 300):
    """Positions of six from games that always take the first legal move
    after some varied openings."""
    found = []
    for first in morris.Position("start", variant="six").legal_moves():
        p = morris.Position("start", variant="six").play(first)
        for ply in range(40):
            try:
                # A side left with 2 stones has no notation: the game is over.
                morris.Position(str(p), variant="six")
            except ValueError:
                break
            found.append(p)
            moves = p.legal_moves()
            if not moves:
                break
            p = p.play(moves[(ply * 7) % len(moves)])
            if len(found) >= count:
                return found
    return found


def test_value_moves_and_line_agree_with_the_cli(six, six_dir):
    assert six.value("start") == morris.Value("draw", None, True)
    for p in some_positions(40)[::8]:
        cli = query_json(six_dir, str(p))
        v = six.value(p)
        assert (v.value, v.plies, v.exact) == (cli["value"], cli["plies"], cli["exact"])
        moves = six.moves(p)
        assert [m.move for m in moves] == [m["move"] for m in cli["moves"]]
        assert [(m.value, m.plies, m.position) for m in moves] == [
            (m["value"], m["plies"], m["position"]) for m in cli["moves"]
        ]
        line = six.line(p, len(cli["line"]))
        assert line.moves == cli["line"]
        assert line.cut == cli["line_cut"]


def test_moves_are_best_first_and_lead_where_they_say(six):
    start = morris.Position("start", variant="six")
    moves = six.moves(start)
    assert len(moves) == 16 == len(start.legal_moves())
    for m in moves:
        assert m.position == str(start.play(m.move))
        assert six.value(m.position).value == {"win": "loss", "loss": "win", "draw": "draw"}[m.value]
    line = six.line(start, 10)
    assert len(line.moves) == 10 and line.cut


def test_probe_many_equals_value_one_by_one(six, monkeypatch):
    positions = some_positions(300)
    expected = [six.value(p) for p in positions]
    texts = [str(p) for p in positions]
    # Without NumPy: a list of ints.
    monkeypatch.setitem(sys.modules, "numpy", None)
    codes = six.probe_many(texts)
    assert isinstance(codes, list) and all(isinstance(c, int) for c in codes)
    assert [morris.decode(c) for c in codes] == expected
    assert six.probe_many(positions) == codes
    assert six.probe_many([]) == []


def test_probe_many_gives_a_numpy_array_when_numpy_is_there(six):
    numpy = pytest.importorskip("numpy")
    positions = [str(p) for p in some_positions(100)]
    codes = six.probe_many(positions)
    assert isinstance(codes, numpy.ndarray) and codes.dtype == numpy.int32
    assert [morris.decode(c) for c in codes] == [six.value(p) for p in positions]


def test_probe_many_runs_beside_other_threads(six):
    positions = [str(p) for p in some_positions(300)] * 50
    results = [None, None]

    def work(i):
        results[i] = six.probe_many(positions)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert list(results[0]) == list(results[1]) == list(six.probe_many(positions))
    assert len(results[0]) == len(positions)


def test_codes_decode():
    assert morris.decode(0) == ("draw", None, True)
    assert morris.decode(12) == ("win", 11, True)
    assert morris.decode(-1) == ("loss", 0, True)
    assert morris.decode(-morris.UNKNOWN_PLIES) == ("loss", None, False)


def test_bad_input_is_a_value_error_with_the_cli_message(six, six_dir):
    for bad in ["bogus", "WWW..B../....B.B./........ w 0 0", "......../........ w 5 4"]:
        with pytest.raises(ValueError) as raised:
            six.value(bad)
        message = cli_error(six_dir, "--variant", "six", "query", bad)
        # The hint on how to ask for a game from another start differs.
        assert str(raised.value).split("; for a game")[0] == message.split("; for a game")[0]
    with pytest.raises(ValueError, match="position 1: position 'bogus'"):
        six.probe_many(["start", "bogus"])
    with pytest.raises(ValueError, match="is not a position|not a point|expected"):
        morris.Position("WW", variant="six")
    with pytest.raises(ValueError, match="unknown variant|not a variant|variant"):
        morris.Database(six_dir, variant="ten")
    with pytest.raises(TypeError):
        six.value(17)
    with pytest.raises(ValueError, match="of nine, the database of six"):
        six.value(morris.Position())


def test_missing_tables_are_database_errors_with_the_cli_message(tmp_path):
    db = morris.Database(tmp_path, variant="nine")
    position = "WW....B./W......./BB...... w 0 0"
    with pytest.raises(morris.DatabaseError) as raised:
        db.value(position)
    assert str(raised.value) == cli_error(tmp_path, "query", position)
    assert "morris solve --variant nine" in str(raised.value)
    with pytest.raises(morris.DatabaseError, match="position 0: sector 3-3 of nine"):
        db.probe_many([position])
    with pytest.raises(morris.DatabaseError, match="no such database directory"):
        morris.Database(tmp_path / "nothing")


def test_a_damaged_table_is_a_database_error(six_dir, tmp_path):
    for table in six_dir.glob("*.mtb"):
        data = bytearray(table.read_bytes())
        if table.name == "six-3-3.mtb":
            data[0] ^= 0xFF
        (tmp_path / table.name).write_bytes(bytes(data))
    db = morris.Database(tmp_path, variant="six")
    position = "W.W.W.../B.B.B... w 0 0"
    with pytest.raises(morris.DatabaseError, match="six-3-3.mtb: not a morris table"):
        db.value(position)
    with pytest.raises(morris.DatabaseError, match="position 1: .*six-3-3.mtb"):
        db.probe_many(["start", position])


def test_the_search_answers_placement_positions_without_tables(six_moving_dir):
    db = morris.Database(six_moving_dir, variant="six")
    assert db.value("start") == morris.Value("draw", None, False)
    # A draw has no distance, so its code (0) says nothing of how it was found.
    assert db.probe_many(["start"]) == [0]


def test_positions(six):
    start = morris.Position("start", variant="six")
    assert str(start) == "......../........ w 6 6"
    assert start.to_move == "white" and start.variant == "six"
    assert repr(start) == "Position('......../........ w 6 6', variant='six')"
    after = start.play("a5")
    assert after.to_move == "black"
    assert after == morris.Position(str(after), variant="six")
    assert len({after, morris.Position(str(after), variant="six")}) == 1
    with pytest.raises(ValueError, match="move 'a5' is not legal .*a5 is not empty"):
        after.play("a5")
    assert morris.Position() == morris.Position("start")
    assert len(morris.Position().legal_moves()) == 24


def test_lasker_flies_by_the_stones_left_in_all_unless_told_the_board(tmp_path):
    # Two stones on the board and one in hand: three left in all.
    text = "WW.B..../B......./B....... w 1 1"
    published = morris.Position(text, variant="lasker").legal_moves()
    board = morris.Position(text, variant="lasker", fly_count="board").legal_moves()
    assert "a7-e3" in published and "a7-e3" not in board
    assert "d7-g7" in board
    with pytest.raises(ValueError, match="fly_count: .*lasker only"):
        morris.Position("start", variant="nine", fly_count="all")
    with pytest.raises(ValueError, match="fly_count: invalid flying count 'hand'"):
        morris.Database(tmp_path, variant="lasker", fly_count="hand")
    # Tables solved under the board's reading are refused under the
    # published one, with the option that reads them named.
    done = run(
        "--variant", "lasker", "--fly-count", "board", "--db", str(tmp_path),
        "solve", "--max-stones", "7", "--threads", "2",
    )
    assert done.returncode == 0, done.stderr
    with pytest.raises(morris.DatabaseError, match="solved with --fly-count board"):
        morris.Database(tmp_path, variant="lasker").value(text)
    value = morris.Database(tmp_path, variant="lasker", fly_count="board").value(text)
    assert value == morris.Value("win", 11, True)


def test_stats_list_every_table(six, six_dir):
    rows = six.stats()
    assert len(rows) == len(list(six_dir.glob("six-*.mtb")))
    row = next(r for r in rows if r["sector"] == "3-3")
    assert row["states"] == row["wins"] + row["losses"] + row["draws"] > 0
    assert set(row) == {"sector", "states", "wins", "losses", "draws", "max_win", "max_loss"}


def test_readme_example(six_dir):
    # The README's example: label the first placements of six.
    db = morris.Database(six_dir, variant="six")
    labels = {m.move: m.value for m in db.moves("start")}
    assert len(labels) == 16 and set(labels.values()) == {"draw"}
