//! `morris play`: a game against the perfect player in the terminal.
//!
//! The human's moves are read line by line from standard input, so a game
//! can also be piped in; the end of the input ends the game.

use crate::common::{describe, ending, parse_position_in};
use anyhow::Result;
use morris::database::Database;
use morris::game::{Game, Repetition};
use morris::position::{Color, Position};
use morris::query::{after, describe_value, parse_move, Query, PERFECT_PLAYER};
use morris::rules::{legal_moves, status, Status};
use morris::tiebreak::Style;
use morris::variant::Variant;
use std::io::{BufRead, Write};

#[derive(clap::Args)]
pub struct Args {
    /// The side you play; the perfect player takes the other.
    #[arg(long, value_enum, default_value = "white")]
    human: Side,

    /// The position to start from: `start` or `BOARD SIDE WH BH`.
    #[arg(long, value_name = "POSITION", default_value = "start")]
    from: String,

    /// When a repetition draws the game: `board` (the rules text: the
    /// board repeats an earlier arrangement) or `threefold` (the same
    /// position a third time).
    #[arg(long, value_name = "RULE", default_value = "board")]
    repetition: Repetition,

    /// How the perfect player picks among drawing moves: RULE or
    /// RULE:playon, RULE one of uniform, replies, share, traps2, balance;
    /// playon: it declines a repetition draw while another move keeps the
    /// draw. `replies` is the rule of earlier versions (docs/match.md
    /// compares them). No choice changes the value of its move.
    #[arg(long, value_name = "STYLE", default_value_t = Style::DEFAULT)]
    tie_break: Style,

    /// Take a `--from` position of a game that started with other numbers
    /// of stones to place (as `query --extended`).
    #[arg(long)]
    extended: bool,
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum Side {
    White,
    Black,
}

/// Plays a game, reading the human's moves from `input`; `echo` writes
/// each line read after its prompt (for input that is not a terminal).
pub fn run(
    db: &Database,
    args: &Args,
    input: &mut impl BufRead,
    echo: bool,
    out: &mut impl Write,
) -> Result<()> {
    let variant = db.variant();
    let human = match args.human {
        Side::White => Color::White,
        Side::Black => Color::Black,
    };
    let from = parse_position_in(db, &args.from, args.extended, "add --extended")?;
    let mut game = Game::new(from, args.repetition);
    let query = Query::new(db);
    // Ask once before the game starts, so a missing table is reported
    // before the human has typed anything.
    query.value(game.position())?;
    query.check_distances(game.position(), PERFECT_PLAYER)?;
    writeln!(
        out,
        "morris play: {} against the perfect player (database {})",
        describe(variant),
        db.dir().display()
    )?;
    writeln!(
        out,
        "You play {human}. Moves: d6 (place), d6-d5 (slide or fly), d6-d5xg7 (and remove g7); \
         'moves' lists the legal moves, 'quit' ends the game."
    )?;
    writeln!(out, "Repetition: {}.", rule_in_words(args.repetition))?;
    loop {
        let position = *game.position();
        writeln!(out)?;
        write!(out, "{}", position.diagram(variant))?;
        writeln!(out, "position  {}", position.notation(variant))?;
        let state = position.state();
        match status(variant, &state) {
            Status::Playing => {}
            Status::Drawn => {
                writeln!(out, "Game over: a draw, the board is full.")?;
                return Ok(());
            }
            Status::Lost => {
                writeln!(out, "Game over: {}.", ending(variant, &position))?;
                return Ok(());
            }
        }
        if let Some(ply) = game.repeated() {
            let what = match game.rule() {
                Repetition::Board => "the board repeats",
                Repetition::Threefold => "the position has occurred 3 times, first",
            };
            writeln!(out, "Game over: a draw by repetition, {what} at ply {ply}.")?;
            return Ok(());
        }
        let (value, _) = query.value(&position)?;
        writeln!(out, "database  {}", describe_value(value, position.to_move))?;
        let mover = position.to_move;
        if mover == human {
            let Some(mv) = ask_move(variant, &position, input, echo, out)? else {
                writeln!(out)?;
                writeln!(out, "End of input: the game is left unfinished.")?;
                return Ok(());
            };
            let Some(mv) = mv else {
                writeln!(out, "{human} resigns.")?;
                return Ok(());
            };
            writeln!(out, "{mover} plays {}", mv.notation(variant))?;
            game.push(after(&position, mv));
        } else {
            let choice = game
                .choose_move_by(&query, args.tie_break)?
                .expect("a game that goes on has a legal move");
            writeln!(out, "{mover} plays {}", choice.mv.notation(variant))?;
            game.push(after(&position, choice.mv));
        }
    }
}

/// Reads lines until one is a legal move: `Some(Some(move))`, or
/// `Some(None)` when the human quits, or `None` at the end of the input.
fn ask_move(
    variant: &Variant,
    position: &Position,
    input: &mut impl BufRead,
    echo: bool,
    out: &mut impl Write,
) -> Result<Option<Option<morris::Move>>> {
    loop {
        write!(out, "{} to move> ", position.to_move)?;
        out.flush()?;
        let mut line = String::new();
        if input.read_line(&mut line)? == 0 {
            return Ok(None);
        }
        if echo {
            writeln!(out, "{}", line.trim_end())?;
        }
        match line.trim() {
            "" => continue,
            "quit" | "resign" => return Ok(Some(None)),
            "moves" | "help" | "?" => {
                let moves: Vec<String> = legal_moves(variant, &position.state())
                    .iter()
                    .map(|m| m.notation(variant))
                    .collect();
                writeln!(out, "legal moves: {}", moves.join(" "))?;
            }
            text => match parse_move(variant, position, text) {
                Ok(mv) => return Ok(Some(Some(mv))),
                Err(e) => writeln!(out, "{e}. Try again ('moves' lists the legal moves).")?,
            },
        }
    }
}

fn rule_in_words(rule: Repetition) -> &'static str {
    match rule {
        Repetition::Board => "a board that repeats an earlier one draws the game (--repetition threefold: the same position 3 times)",
        Repetition::Threefold => "the same position 3 times draws the game",
    }
}
