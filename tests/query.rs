//! Queries on a solved database: values, move lists, perfect-play lines,
//! the perfect player's choice, errors, and the `query` and `play`
//! commands of the binary.
//!
//! One database is solved for the whole file: nine's moving phase with at
//! most 7 stones on the board (sectors 3-3, 3-4, 4-3).

mod nine7;

use morris::database::Database;
use morris::game::{Game, Repetition};
use morris::index::Sector;
use morris::position::{Color, Move, Position, State};
use morris::query::{after, play_moves, Exactness, Query, QueryError, DRAW_LINE_PLIES};
use morris::rules::{legal_moves, status, Status};
use morris::value::Value;
use morris::verify::value_from_successors;
use nine7::{db, nine};
use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;

const SECTORS: [(u8, u8); 3] = [(3, 3), (3, 4), (4, 3)];

fn dir() -> &'static Path {
    db().dir()
}

/// Canonical positions of `sector`, every `step`-th slot from `offset`,
/// with White to move.
fn positions(sector: Sector, step: u64, offset: u64) -> Vec<Position> {
    let ix = db().indexer().sector(sector);
    (offset..ix.slots())
        .step_by(step as usize)
        .filter_map(|slot| ix.unrank(slot))
        .map(|(mover, opponent)| {
            Position::from_state(
                &State { mover, opponent, mover_hand: 0, opponent_hand: 0 },
                Color::White,
            )
        })
        .collect()
}

/// Some positions of every solved sector.
fn sample() -> Vec<Position> {
    SECTORS.iter().flat_map(|&(m, o)| positions(Sector::moving(m, o), 997, 13)).collect()
}

fn stored(state: &State) -> Value {
    db().value(state).unwrap()
}

#[test]
fn moves_come_best_first_with_the_values_of_the_tables() {
    let q = Query::new(db());
    let v = nine();
    let mut checked = 0;
    for p in sample() {
        let a = q.analyse(&p).unwrap();
        let state = p.state();
        assert_eq!(a.sector, Sector::of(&state));
        assert_eq!(a.exactness, Exactness::Exact);
        if status(&v, &state) != Status::Playing {
            assert!(a.moves.is_empty() && a.line.moves.is_empty());
            continue;
        }
        assert_eq!(a.value, stored(&state), "{}", p.notation(&v));
        assert_eq!(a.value, value_from_successors(&v, &state, &|s| stored(s)));
        let legal = legal_moves(&v, &state);
        assert_eq!(a.moves.len(), legal.len());
        for m in &a.moves {
            let next = morris::rules::play(&state, m.mv);
            let after_value = if next.mover_stones() < 3 { Value::Loss(0) } else { stored(&next) };
            assert_eq!(m.value, after_value.back());
        }
        assert_eq!(a.moves[0].value, a.value);
        for pair in a.moves.windows(2) {
            let (x, y) = (pair[0], pair[1]);
            assert!(x.value.preference() >= y.value.preference(), "not best first: {x:?} {y:?}");
            if x.value == y.value {
                let at = |m: Move| legal.iter().position(|&l| l == m).unwrap();
                assert!(at(x.mv) < at(y.mv), "ties keep the order of legal_moves");
            }
        }
        checked += 1;
    }
    assert!(checked > 500, "only {checked} positions checked");
}

#[test]
fn lines_are_perfect_play_to_the_end() {
    let q = Query::new(db());
    let v = nine();
    let (mut wins, mut losses, mut draws) = (0, 0, 0);
    for p in sample() {
        let a = q.analyse(&p).unwrap();
        let mut at = p;
        let mut value = a.value;
        for (k, &mv) in a.line.moves.iter().enumerate() {
            assert!(legal_moves(&v, &at.state()).contains(&mv));
            at = after(&at, mv);
            let next =
                if at.state().mover_stones() < 3 { Value::Loss(0) } else { stored(&at.state()) };
            assert_eq!(next.back(), value, "ply {k} of the line from {}", p.notation(&v));
            value = next;
        }
        assert_eq!(at, a.line.end);
        match a.value {
            Value::Draw => {
                draws += 1;
                assert!(a.line.cut);
                assert_eq!(a.line.moves.len(), DRAW_LINE_PLIES);
            }
            Value::Win(d) | Value::Loss(d) => {
                if d > 0 {
                    if matches!(a.value, Value::Win(_)) {
                        wins += 1;
                    } else {
                        losses += 1;
                    }
                }
                assert!(!a.line.cut);
                assert_eq!(a.line.moves.len(), d as usize);
                assert_eq!(status(&v, &at.state()), Status::Lost);
                // The side that was winning moved last.
                let loser =
                    if matches!(a.value, Value::Win(_)) { p.to_move.other() } else { p.to_move };
                assert_eq!(at.to_move, loser);
            }
        }
        // `line` on its own gives the same moves.
        let line = q.line(&p, a.line.moves.len()).unwrap();
        assert_eq!(line.moves, a.line.moves);
    }
    assert!(wins > 50 && losses > 20 && draws > 0, "wins {wins} losses {losses} draws {draws}");
}

#[test]
fn drawn_lines_are_cut_and_say_so() {
    let q = Query::new(db());
    let draws: Vec<Position> = positions(Sector::moving(3, 3), 1, 0)
        .into_iter()
        .filter(|p| stored(&p.state()) == Value::Draw)
        .take(20)
        .collect();
    assert_eq!(draws.len(), 20);
    for p in draws {
        let line = q.line(&p, 7).unwrap();
        assert_eq!((line.moves.len(), line.cut), (7, true));
        let mut at = p;
        for &mv in &line.moves {
            at = after(&at, mv);
            assert_eq!(stored(&at.state()), Value::Draw);
        }
    }
}

#[test]
fn values_are_for_the_side_to_move_whatever_its_colour() {
    let q = Query::new(db());
    let v = nine();
    for p in sample().into_iter().take(300) {
        let swapped = Position {
            white: p.black,
            black: p.white,
            white_hand: p.black_hand,
            black_hand: p.white_hand,
            to_move: p.to_move.other(),
        };
        assert_eq!(q.value(&p).unwrap(), q.value(&swapped).unwrap());
        let (a, b) = (q.moves(&p).unwrap(), q.moves(&swapped).unwrap());
        assert_eq!(a, b, "{}", p.notation(&v));
    }
}

#[test]
fn symmetric_positions_have_the_same_value_and_move_values() {
    let q = Query::new(db());
    let syms = db().indexer().symmetries();
    for p in sample().into_iter().step_by(7).take(100) {
        let values = |p: &Position| {
            let mut vs: Vec<Value> = q.moves(p).unwrap().iter().map(|m| m.value).collect();
            vs.sort_by_key(|v| v.preference());
            (q.value(p).unwrap().0, vs)
        };
        for s in 0..syms.len() {
            let image =
                Position { white: syms.apply(s, p.white), black: syms.apply(s, p.black), ..p };
            assert_eq!(values(&image), values(&p));
        }
    }
}

#[test]
fn the_perfect_player_wins_fastest_loses_slowest_and_sets_traps_when_drawing() {
    let q = Query::new(db());
    let mut draws = 0;
    for p in sample().into_iter().step_by(3) {
        let Some(choice) = q.choose_move(&p).unwrap() else {
            continue;
        };
        let moves = q.moves(&p).unwrap();
        assert_eq!(choice.value, moves[0].value);
        if choice.value != Value::Draw {
            assert_eq!(choice, moves[0], "fastest win or slowest loss, first in move order");
            continue;
        }
        draws += 1;
        // Brute force: most losing replies, then fewest drawing ones.
        let score = |mv: Move| {
            let replies = q.moves(&after(&p, mv)).unwrap();
            let losing = replies.iter().filter(|r| matches!(r.value, Value::Loss(_))).count();
            let drawing = replies.iter().filter(|r| r.value == Value::Draw).count();
            (losing, std::cmp::Reverse(drawing))
        };
        let best =
            moves.iter().filter(|m| m.value == Value::Draw).map(|m| score(m.mv)).max().unwrap();
        assert_eq!(score(choice.mv), best);
        let first = moves.iter().find(|m| m.value == Value::Draw && score(m.mv) == best).unwrap();
        assert_eq!(choice.mv, first.mv, "ties go to the earlier move");
    }
    let three = positions(Sector::moving(3, 3), 1, 0);
    for p in three.iter().filter(|p| stored(&p.state()) == Value::Draw).take(10) {
        let choice = q.choose_move(p).unwrap().unwrap();
        assert_eq!(choice.value, Value::Draw);
        draws += 1;
    }
    assert!(draws >= 10);
}

#[test]
fn a_game_that_is_over_needs_no_table() {
    let v = nine();
    // An empty database: the rules answer.
    let empty = Database::new(tempfile::tempdir().unwrap().path(), nine());
    let q = Query::new(&empty);
    // White's corners are boxed in by Black's midpoints.
    let blocked = Position::parse("WBWBWBWB/......../........ w 0 0", &v).unwrap();
    let a = q.analyse(&blocked).unwrap();
    assert_eq!((a.value, a.status, a.moves.len()), (Value::Loss(0), Status::Lost, 0));
    assert!(q.choose_move(&blocked).unwrap().is_none());
    // After a capture that leaves Black two stones.
    let p = Position::parse("WW....B./W......./BB...... w 0 0", &v).unwrap();
    let (end, _) = play_moves(&v, &p, "b6-g7xa1").unwrap();
    assert_eq!(q.value(&end).unwrap(), (Value::Loss(0), Exactness::Exact));
    assert!(q.best_move(&end).unwrap().is_none());
}

#[test]
fn a_missing_sector_names_itself_and_the_solve_command() {
    let v = nine();
    let q = Query::new(db());
    let dir = dir().display().to_string();
    for (text, sector, stones) in [
        // 5 White stones against 3: sector 5-3, which needs 8 stones.
        ("WWWWW.../BBB...../........ w 0 0", "5-3", 8),
        ("WWWW..../BBBB..../........ b 0 0", "4-4", 8),
        // The start is searched down to the moving phase, which is missing
        // from its first sector past the database's 7 stones.
        ("......../......../........ w 9 9", "4-4", 18),
    ] {
        let p = Position::parse(text, &v).unwrap();
        let err = q.analyse(&p).unwrap_err();
        assert!(matches!(err, QueryError::Db(morris::database::DbError::Missing { .. })), "{err}");
        let msg = err.to_string();
        assert!(msg.contains(&format!("sector {sector} ")), "{msg}");
        assert!(
            msg.contains(&format!("morris solve --variant nine --max-stones {stones} --db {dir}")),
            "{msg}"
        );
    }
}

// ------------------------------------------------------------ the binary

fn morris(args: &[&str], input: Option<&str>) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_morris"));
    cmd.arg("--db").arg(dir()).args(args).env_remove("MORRIS_VARIANT").env_remove("MORRIS_DB");
    cmd.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("the binary runs");
    let mut stdin = child.stdin.take().unwrap();
    if let Some(text) = input {
        // The binary may stop reading (or never start) when it fails.
        let _ = stdin.write_all(text.as_bytes());
    }
    drop(stdin);
    child.wait_with_output().unwrap()
}

fn ok(args: &[&str]) -> String {
    let out = morris(args, None);
    assert!(out.status.success(), "morris {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

/// A failed run: exit code 1 and one line on stderr, which is returned.
fn fails(args: &[&str]) -> String {
    let out = morris(args, None);
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(1), "morris {args:?}: {err}");
    assert_eq!(err.lines().count(), 1, "one line expected: {err}");
    assert!(err.starts_with("morris: error: ") && !err.contains("panicked"), "{err}");
    err
}

/// A position with the longest win for White among some of 3-3 and 3-4.
fn long_win() -> Position {
    static WIN: OnceLock<Position> = OnceLock::new();
    *WIN.get_or_init(|| {
        let q = Query::new(db());
        [Sector::moving(3, 3), Sector::moving(3, 4)]
            .into_iter()
            .flat_map(|s| positions(s, 7, 0))
            .max_by_key(|p| match q.value(p).unwrap().0 {
                Value::Win(d) => d as i32,
                _ => -1,
            })
            .unwrap()
    })
}

#[test]
fn query_prints_value_moves_line_and_diagram() {
    let v = nine();
    let p = long_win();
    let Value::Win(d) = Query::new(db()).value(&p).unwrap().0 else { unreachable!() };
    let text = ok(&["query", &p.notation(&v)]);
    assert!(text.starts_with("7 "), "the diagram comes first: {text}");
    assert!(text.contains("  a   b   c   d   e   f   g"));
    assert!(text.contains(&format!("value      White wins in {d} plies")), "{text}");
    assert!(text.contains(&format!("sector     {}", Sector::of(&p.state()))));
    let moves = Query::new(db()).moves(&p).unwrap();
    assert!(text.contains(&format!("moves      {}, best first", moves.len())), "{text}");
    let best = moves[0].mv.notation(&v);
    assert!(text.contains(&format!("  {best} ")), "{text}");
    assert!(text.contains(&format!("line       {d} plies to the end: White wins")), "{text}");
    // Black to move in the same position: its value is for Black.
    let black = Position { to_move: Color::Black, ..p };
    let value = Query::new(db()).value(&black).unwrap().0;
    let text = ok(&["query", &black.notation(&v)]);
    assert!(
        text.contains(&format!(
            "value      {}",
            morris::query::describe_value(value, Color::Black)
        )),
        "{text}"
    );
}

#[test]
fn query_json_follows_the_design() {
    let v = nine();
    let q = Query::new(db());
    let draw = positions(Sector::moving(3, 4), 1, 0)
        .into_iter()
        .find(|p| q.value(p).unwrap().0 == Value::Draw)
        .unwrap();
    for p in [long_win(), draw, Position { to_move: Color::Black, ..long_win() }] {
        let a = q.analyse(&p).unwrap();
        let json = json::parse(&ok(&["query", &p.notation(&v), "--json"]));
        assert_eq!(json.get("value").str(), a.value.kind());
        match a.value.plies() {
            Some(d) => assert_eq!(json.get("plies").num(), d as f64),
            None => assert!(json.get("plies").is_null()),
        }
        assert_eq!(json.get("position").str(), p.notation(&v));
        assert_eq!(json.get("sector").str(), a.sector.to_string());
        assert_eq!(json.get("exact"), &json::Json::Bool(true));
        let moves = json.get("moves").arr();
        assert_eq!(moves.len(), a.moves.len());
        for (j, m) in moves.iter().zip(&a.moves) {
            assert_eq!(j.get("move").str(), m.mv.notation(&v));
            assert_eq!(j.get("value").str(), m.value.kind());
            assert_eq!(j.get("position").str(), after(&p, m.mv).notation(&v));
            match m.value.plies() {
                Some(d) => assert_eq!(j.get("plies").num(), d as f64),
                None => assert!(j.get("plies").is_null()),
            }
        }
        let line: Vec<String> =
            json.get("line").arr().iter().map(|m| m.str().to_string()).collect();
        let expected: Vec<String> = a.line.moves.iter().map(|m| m.notation(&v)).collect();
        assert_eq!(line, expected);
        assert_eq!(json.get("line_cut"), &json::Json::Bool(a.value == Value::Draw));
    }
}

#[test]
fn query_moves_plays_a_sequence_first() {
    let v = nine();
    let p = long_win();
    let q = Query::new(db());
    let first = q.best_move(&p).unwrap().unwrap().mv;
    let reply = q.best_move(&after(&p, first)).unwrap().unwrap().mv;
    let sequence = format!("{} {}", first.notation(&v), reply.notation(&v));
    let text = ok(&["query", &p.notation(&v), "--moves", &sequence]);
    let reached = after(&after(&p, first), reply);
    assert!(text.contains(&format!("after      {sequence}")), "{text}");
    assert!(text.contains(&format!("position   {}", reached.notation(&v))), "{text}");
    let Value::Win(d) = q.value(&p).unwrap().0 else { unreachable!() };
    assert!(text.contains(&format!("White wins in {} plies", d - 2)), "{text}");
}

#[test]
fn query_refuses_an_illegal_move_naming_it_and_the_position() {
    let v = nine();
    let p = Position::parse("WW....B./W......./BB...... w 0 0", &v).unwrap();
    let err = fails(&["query", &p.notation(&v), "--moves", "b6-g7xa1 a1-a4"]);
    assert!(
        err.contains("move 'a1-a4' is not legal in WWW...../......../BB...... b 0 0: the game is over: Black has fewer than 3 stones"),
        "{err}"
    );
    let err = fails(&["query", &p.notation(&v), "--moves", "b6-g7"]);
    assert!(
        err.contains(&format!("move 'b6-g7' is not legal in {}: it closes a mill", p.notation(&v))),
        "{err}"
    );
    let err = fails(&["query", "start", "--moves", "d6 d6"]);
    assert!(
        err.contains("move 'd6' is not legal in ......../.W....../........ b 8 9: d6 is not empty"),
        "{err}"
    );
}

#[test]
fn query_of_a_missing_sector_is_one_line_naming_sector_and_command() {
    let err = fails(&["query", "start"]);
    assert!(err.contains("sector 4-4 of nine is not in the database"), "{err}");
    assert!(
        err.contains(&format!(
            "morris solve --variant nine --max-stones 18 --db {}",
            dir().display()
        )),
        "{err}"
    );
    let err = fails(&["query", "WWWWW.../BBB...../........ w 0 0"]);
    assert!(err.contains("sector 5-3 ") && err.contains("--max-stones 8"), "{err}");
}

/// The human's moves of a game from `start` in which the human plays
/// `human` perfectly (fastest win, slowest loss) against the perfect
/// player, found with the library; the game's moves come second.
/// The game `play` must show: the human plays the tables' best move, the
/// perfect player `Game::choose_move` under the default repetition rule
/// (a repeated board draws). Also whether it ended by repetition.
fn scripted_game(start: Position, human: Color) -> (Vec<String>, Vec<Move>, bool) {
    let v = nine();
    let q = Query::new(db());
    let mut game = Game::new(start, Repetition::Board);
    let (mut said, mut all) = (Vec::new(), Vec::new());
    while status(&v, &game.position().state()) == Status::Playing && game.repeated().is_none() {
        let at = *game.position();
        let mv = if at.to_move == human {
            let mv = q.best_move(&at).unwrap().unwrap().mv;
            said.push(mv.notation(&v));
            mv
        } else {
            game.choose_move(&q).unwrap().unwrap().mv
        };
        all.push(mv);
        game.push(after(&at, mv));
    }
    (said, all, game.repeated().is_some())
}

#[test]
fn play_a_whole_game_from_piped_moves() {
    let v = nine();
    let start = long_win();
    for human in [Color::White, Color::Black] {
        let (said, all, repeated) = scripted_game(start, human);
        let input = said.join("\n") + "\n";
        let side = human.name().to_lowercase();
        let out = morris(&["play", "--human", &side, "--from", &start.notation(&v)], Some(&input));
        let text = String::from_utf8(out.stdout).unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        for mv in &all {
            assert!(
                text.contains(&format!(" plays {}\n", mv.notation(&v))),
                "{} missing: {text}",
                mv.notation(&v)
            );
        }
        assert_eq!(text.matches(" plays ").count(), all.len());
        let end = text.trim_end();
        assert!(
            if repeated {
                end.contains("Game over: a draw by repetition, the board repeats at ply ")
            } else {
                end.ends_with("Game over: White wins, Black is left with 2 stones.")
                    || end.contains("Game over: White wins, Black cannot move.")
            },
            "{text}"
        );
        assert_eq!(text.matches("\n7 ").count(), all.len() + 1, "a diagram after each move");
    }
}

#[test]
fn play_explains_bad_input_and_asks_again() {
    let v = nine();
    let p = Position::parse("WW....B./W......./BB...... w 0 0", &v).unwrap();
    let input = "hello\n\nd6\nmoves\nb6-g7\nb6-g7xa1\n";
    let out = morris(&["play", "--from", &p.notation(&v)], Some(input));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(out.status.success());
    assert!(
        text.contains("move 'hello': 'hello' is not a point of the nine board. Try again"),
        "{text}"
    );
    assert!(text.contains("White has no stones in hand"), "{text}");
    assert!(text.contains("legal moves: a7-g7 "), "{text}");
    assert!(text.contains("it closes a mill: add the Black stone it removes"), "{text}");
    assert!(text.contains("White plays b6-g7xa1"), "{text}");
    assert!(text.contains("Game over: White wins, Black is left with 2 stones."), "{text}");
}

#[test]
fn play_ends_cleanly_at_the_end_of_input() {
    let v = nine();
    let p = long_win();
    let out = morris(&["play", "--from", &p.notation(&v)], Some(""));
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(text.trim_end().ends_with("End of input: the game is left unfinished."), "{text}");
    // The perfect player moves first when the human takes Black.
    let out = morris(&["play", "--human", "black", "--from", &p.notation(&v)], Some("quit\n"));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(out.status.success());
    let best = Query::new(db()).choose_move(&p).unwrap().unwrap().mv.notation(&v);
    assert!(text.contains(&format!("White plays {best}\n")), "{text}");
    assert!(text.trim_end().ends_with("Black resigns."), "{text}");
}

#[test]
fn play_without_tables_is_a_one_line_error_before_the_game() {
    let err = {
        let out = morris(&["play"], Some("d6\n"));
        assert_eq!(out.status.code(), Some(1));
        assert!(out.stdout.is_empty(), "nothing printed before the error");
        String::from_utf8(out.stderr).unwrap()
    };
    assert_eq!(err.lines().count(), 1);
    assert!(
        err.contains("sector 4-4") && err.contains("morris solve --variant nine --max-stones 18"),
        "{err}"
    );
}

/// Just enough JSON to check the shape of `query --json`.
mod json {
    #[derive(Debug, PartialEq)]
    pub enum Json {
        Null,
        Bool(bool),
        Num(f64),
        Str(String),
        Arr(Vec<Json>),
        Obj(Vec<(String, Json)>),
    }

    impl Json {
        pub fn get(&self, key: &str) -> &Json {
            match self {
                Json::Obj(fields) => {
                    &fields.iter().find(|(k, _)| k == key).unwrap_or_else(|| panic!("no {key}")).1
                }
                _ => panic!("not an object"),
            }
        }
        pub fn str(&self) -> &str {
            match self {
                Json::Str(s) => s,
                j => panic!("not a string: {j:?}"),
            }
        }
        pub fn num(&self) -> f64 {
            match self {
                Json::Num(n) => *n,
                j => panic!("not a number: {j:?}"),
            }
        }
        pub fn arr(&self) -> &[Json] {
            match self {
                Json::Arr(a) => a,
                j => panic!("not an array: {j:?}"),
            }
        }
        pub fn is_null(&self) -> bool {
            *self == Json::Null
        }
    }

    pub fn parse(text: &str) -> Json {
        let mut p = Parser { s: text.as_bytes(), i: 0 };
        let j = p.value();
        p.ws();
        assert_eq!(p.i, p.s.len(), "trailing text after JSON: {text}");
        j
    }

    struct Parser<'a> {
        s: &'a [u8],
        i: usize,
    }

    impl Parser<'_> {
        fn ws(&mut self) {
            while self.i < self.s.len() && self.s[self.i].is_ascii_whitespace() {
                self.i += 1;
            }
        }
        fn eat(&mut self, c: u8) {
            self.ws();
            assert_eq!(self.s.get(self.i), Some(&c), "expected '{}' at {}", c as char, self.i);
            self.i += 1;
        }
        fn peek(&mut self) -> u8 {
            self.ws();
            self.s[self.i]
        }
        fn value(&mut self) -> Json {
            match self.peek() {
                b'{' => {
                    self.eat(b'{');
                    let mut fields = Vec::new();
                    if self.peek() != b'}' {
                        loop {
                            let Json::Str(k) = self.value() else { panic!("key") };
                            self.eat(b':');
                            fields.push((k, self.value()));
                            if self.peek() == b',' {
                                self.eat(b',');
                            } else {
                                break;
                            }
                        }
                    }
                    self.eat(b'}');
                    Json::Obj(fields)
                }
                b'[' => {
                    self.eat(b'[');
                    let mut items = Vec::new();
                    if self.peek() != b']' {
                        loop {
                            items.push(self.value());
                            if self.peek() == b',' {
                                self.eat(b',');
                            } else {
                                break;
                            }
                        }
                    }
                    self.eat(b']');
                    Json::Arr(items)
                }
                b'"' => {
                    self.i += 1;
                    let mut s = String::new();
                    while self.s[self.i] != b'"' {
                        if self.s[self.i] == b'\\' {
                            self.i += 1;
                        }
                        s.push(self.s[self.i] as char);
                        self.i += 1;
                    }
                    self.i += 1;
                    Json::Str(s)
                }
                _ => {
                    let start = self.i;
                    while self.i < self.s.len() && !b",]} \n".contains(&self.s[self.i]) {
                        self.i += 1;
                    }
                    match std::str::from_utf8(&self.s[start..self.i]).unwrap() {
                        "null" => Json::Null,
                        "true" => Json::Bool(true),
                        "false" => Json::Bool(false),
                        n => Json::Num(n.parse().unwrap_or_else(|_| panic!("bad literal {n}"))),
                    }
                }
            }
        }
    }
}
