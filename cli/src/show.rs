//! `morris show`: everything the library knows about one position without
//! a database.

use crate::common::describe;
use anyhow::Result;
use morris::index::{Indexer, Sector};
use morris::position::{Position, State};
use morris::rules::{legal_moves, status, Status};
use morris::variant::Variant;
use std::io::Write;

#[derive(clap::Args)]
pub struct Args {
    /// The position as `BOARD SIDE WH BH` (quoted, or as four words), or
    /// `start`. Example: "W......./......../.......B w 8 8".
    #[arg(required = true, num_args = 1.., value_name = "POSITION")]
    position: Vec<String>,
}

pub fn run(variant: &Variant, args: &Args, out: &mut impl Write) -> Result<()> {
    let position = parse(variant, &args.position.join(" "))?;
    let state = position.state();
    let sector = Sector::of(&state);
    let ix = Indexer::new(variant.board());
    let index = ix.sector(sector);
    let (mover, opponent) = ix.canonical(state.mover, state.opponent);
    let canonical = Position::from_state(&State { mover, opponent, ..state }, position.to_move);

    write!(out, "{}", position.diagram(variant))?;
    writeln!(out)?;
    field(out, "variant", &describe(variant))?;
    field(out, "position", &position.notation(variant))?;
    field(out, "to move", position.to_move.name())?;
    field(
        out,
        "sector",
        &format!("{sector} (the side to move first; on the board, then in hand)"),
    )?;
    field(out, "canonical", &canonical.notation(variant))?;
    field(
        out,
        "index",
        &format!("{} of {} slots", index.rank(state.mover, state.opponent), index.slots()),
    )?;
    field(out, "status", &describe_status(variant, &position))?;
    write_moves(variant, &state, out)
}

/// `start`, or a position in notation.
fn parse(variant: &Variant, text: &str) -> Result<Position> {
    if text.trim() == "start" {
        return Ok(Position::start(variant));
    }
    Ok(Position::parse(text, variant)?)
}

fn field(out: &mut impl Write, name: &str, value: &str) -> Result<()> {
    writeln!(out, "{name:<10} {value}")?;
    Ok(())
}

fn describe_status(variant: &Variant, position: &Position) -> String {
    let who = position.to_move.name();
    match status(variant, &position.state()) {
        Status::Playing => "playing".to_string(),
        Status::Lost if position.state().mover_stones() < 3 => {
            format!("lost: {who} has fewer than 3 stones")
        }
        Status::Lost => format!("lost: {who} has no legal move"),
        Status::Drawn => "drawn: the board is full at the end of placement".to_string(),
    }
}

/// The legal moves in notation, wrapped to lines of about 72 columns.
fn write_moves(variant: &Variant, state: &State, out: &mut impl Write) -> Result<()> {
    let moves: Vec<String> =
        legal_moves(variant, state).iter().map(|m| m.notation(variant)).collect();
    field(out, "moves", &moves.len().to_string())?;
    let mut line = String::new();
    for m in &moves {
        if !line.is_empty() && line.len() + 1 + m.len() > 72 {
            writeln!(out, " {line}")?;
            line.clear();
        }
        line.push(' ');
        line.push_str(m);
    }
    if !line.is_empty() {
        writeln!(out, " {line}")?;
    }
    Ok(())
}
