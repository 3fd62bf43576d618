//! The routes of `morris serve`: the page's assets and the JSON API.
//!
//! Every answer is computed from a fixed list of databases, one per known
//! variant, opened on the directory given at start: a client names a
//! variant, never a path, so nothing it sends can reach another file.

use super::http::{Reply, Target};
use crate::common::{describe, one_line, parse_position_in, NoTables};
use crate::probe::ProbedJson;
use crate::{json, query, stats};
use morris::database::{Database, DbError, Stored};
use morris::game::{Game, Repetition};
use morris::index::Sector;
use morris::position::Position;
use morris::query::{after, play_moves, Query, QueryError};
use morris::search::{SearchOptions, SearchStats};
use morris::sectors::{moving_sectors, placement_sectors};
use morris::tiebreak::Style;
use morris::variant::{points, Board, VariantError};
use serde::Serialize;
use std::collections::{HashMap, HashSet};
use std::ffi::OsString;
use std::path::Path;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The page, built into the binary: no network and no build step.
const INDEX_HTML: &str = include_str!("page/index.html");
const APP_JS: &str = include_str!("page/app.js");
const STYLE_CSS: &str = include_str!("page/style.css");

/// The databases served, one per known variant, in the order of
/// `VARIANT_NAMES`.
pub struct Site {
    databases: Vec<Database>,
    /// Per database, whether every placement table is there (once true,
    /// for good: tables are never taken away under a running server),
    /// and when that was last looked at.
    placement_complete: Vec<Mutex<(bool, Option<Instant>)>>,
    /// How the perfect player of `/api/move` plays draws.
    style: Style,
}

/// How long a look at whether a database has every placement table holds.
const LOOK_AGAIN: Duration = Duration::from_secs(2);

impl Site {
    pub fn new(databases: Vec<Database>, style: Style) -> Site {
        let placement_complete = databases.iter().map(|_| Mutex::new((false, None))).collect();
        Site { databases, placement_complete, style }
    }

    /// Whether `db` (one of this site's) has the table of every placement
    /// sector, looked at no more than every [`LOOK_AGAIN`].
    fn has_all_placement(&self, db: &Database) -> bool {
        let Some(i) = self.databases.iter().position(|d| std::ptr::eq(d, db)) else {
            return false;
        };
        let mut known = self.placement_complete[i].lock().unwrap_or_else(|e| e.into_inner());
        if known.0 || known.1.is_some_and(|t| t.elapsed() < LOOK_AGAIN) {
            return known.0;
        }
        let files = files_in(db.dir());
        known.0 = placement_sectors(db.variant()).iter().all(|&s| has_table(db, &files, s));
        known.1 = Some(Instant::now());
        known.0
    }

    /// The database of the variant a client names; the error is the CLI's
    /// for an unknown `--variant`.
    fn database(&self, name: &str) -> Result<&Database, Reply> {
        self.databases
            .iter()
            .find(|db| db.variant().name() == name)
            .ok_or_else(|| Reply::bad_request(&VariantError::Unknown(name.to_string()).to_string()))
    }
}

/// The queries of one worker, kept so that opened tables and the
/// placement search's transposition table and leaf copies serve later
/// requests. One variant's at a time: asking another variant drops the
/// search memory of the one before, so that a server of every variant
/// holds one transposition table (`--transposition-mib`), not one each.
pub struct Queries<'s> {
    site: &'s Site,
    options: SearchOptions,
    current: Option<(String, Query<'s>)>,
}

/// A placement search reports to no one: the request waits for its answer.
fn quiet(_: &SearchStats) {}

impl<'s> Queries<'s> {
    pub fn new(site: &'s Site, options: SearchOptions) -> Queries<'s> {
        Queries { site, options, current: None }
    }

    /// Drops the query and its search: after a panic its state is not
    /// trusted.
    pub fn forget(&mut self) {
        self.current = None;
    }

    fn of(&mut self, db: &'s Database) -> &Query<'s> {
        let name = db.variant().name();
        if self.current.as_ref().is_none_or(|(n, _)| n != name) {
            // The old search's memory goes before the new one's comes.
            self.current = None;
            self.current = Some((name.to_string(), Query::with_search(db, self.options, &quiet)));
        }
        &self.current.as_ref().expect("just set").1
    }
}

/// What a query asks, when it may need the placement search: the variant
/// and the position searched (after its moves), the key under which
/// requests for the same position share one search. That is any placement
/// position while the database lacks some placement table (a position with
/// its table may have moves or a line into a sector without one), so that
/// only the search thread ever holds a transposition table and leaf
/// copies. `None` for everything the tables or the rules answer, and for
/// requests that are wrong (the worker that answers them says why).
pub fn search_key(site: &Site, url: &str) -> Option<(String, String)> {
    let target = Target::parse(url).ok()?;
    if !is_query(&target.path) {
        return None;
    }
    let db = site.database(target.get("variant")?).ok()?;
    let variant = db.variant();
    let extended = target.get("extended") == Some("1");
    let position = parse_position_in(db, target.get("position")?, extended, EXTENDED).ok()?;
    let position = match target.get("moves") {
        Some(moves) => play_moves(variant, &position, moves).ok()?.0,
        None => position,
    };
    // A position of a game from another start is searched unless its own
    // table is there (`solve --extended` then solved all it leads to).
    let state = position.state();
    if state.is_moving_phase() || site.has_all_placement(db) && db.has_values(Sector::of(&state)) {
        return None;
    }
    let moves = target.get("moves").unwrap_or("");
    // Requests with one key share one answer: a move and a query differ.
    let what = if target.path == "/api/move" { "move" } else { "query" };
    Some((variant.name().to_string(), format!("{what}|{}|{moves}", position.notation(variant))))
}

/// Whether `path` is answered by the query thread (a placement search may
/// take a while; everything else is quick).
pub fn is_query(path: &str) -> bool {
    path == "/api/query" || path == "/api/move"
}

/// Whether the route of `target` takes a request body (`POST
/// /api/probe`); the bodies of other requests are dropped unread.
pub fn takes_body(target: &str) -> bool {
    target.split('?').next() == Some("/api/probe")
}

/// The answer to any request but `/api/query`.
pub fn answer(site: &Site, method: &str, url: &str, body: &[u8]) -> Reply {
    if takes_body(url) {
        return probe_of(site, method, url, body).unwrap_or_else(|reply| reply);
    }
    let target = match checked(method, url) {
        Ok(t) => t,
        Err(reply) => return reply,
    };
    let result = match target.path.as_str() {
        "/" | "/index.html" => Ok(asset(INDEX_HTML, "text/html; charset=utf-8")),
        "/app.js" => Ok(asset(APP_JS, "text/javascript; charset=utf-8")),
        "/style.css" => Ok(asset(STYLE_CSS, "text/css; charset=utf-8")),
        "/api/variants" => target.only(&[]).map_err(|e| Reply::bad_request(&e)).map(|_| variants(site)),
        "/api/stats" => stats_of(site, &target),
        path => Err(Reply::error(
            404,
            &format!("no such route: {path} (routes: /, /api/variants, /api/query, /api/move, /api/probe, /api/stats, /api/distances)"),
        )),
    };
    result.unwrap_or_else(|reply| reply)
}

/// Whether `path` is answered by the thread that reads whole tables
/// (`/api/distances` decodes every cell of a sector: seconds for nine's
/// largest, which the quick routes must not wait for).
pub fn is_table_read(path: &str) -> bool {
    path == "/api/distances"
}

/// The histograms already read, by variant and sector: a table never
/// changes under a running server's eyes (writers rename a new file over
/// it, and a new solve means a new server).
pub struct Reads<'s> {
    site: &'s Site,
    done: HashMap<(String, String), Vec<u8>>,
}

impl<'s> Reads<'s> {
    pub fn new(site: &'s Site) -> Reads<'s> {
        Reads { site, done: HashMap::new() }
    }
}

/// The answer to `/api/distances?variant=V&sector=S`: the object of
/// `morris stats --distances --json --sector S`.
pub fn answer_table_read(reads: &mut Reads, method: &str, url: &str) -> Reply {
    checked(method, url)
        .and_then(|target| distances_of(reads, &target))
        .unwrap_or_else(|reply| reply)
}

fn distances_of(reads: &mut Reads, target: &Target) -> Result<Reply, Reply> {
    target.only(&["variant", "sector"]).map_err(|e| Reply::bad_request(&e))?;
    let db = reads.site.database(target.require("variant").map_err(|e| Reply::bad_request(&e))?)?;
    let name = target.require("sector").map_err(|e| Reply::bad_request(&e))?;
    let sector = stats::sector_of(db, name).map_err(|e| Reply::bad_request(&one_line(&e)))?;
    let key = (db.variant().name().to_string(), sector.to_string());
    if let Some(body) = reads.done.get(&key) {
        return Ok(Reply::json(body.clone()));
    }
    let body = match stats::distances_object(db, sector) {
        Ok(object) => format!("{object}\n"),
        Err(e)
            if matches!(
                e.downcast_ref::<DbError>(),
                Some(DbError::Missing { .. } | DbError::NeedsFullTier(_))
            ) =>
        {
            return Err(Reply::error(404, &one_line(&e)))
        }
        Err(e) => return Err(Reply::error(500, &one_line(&e))),
    };
    reads.done.insert(key, body.clone().into_bytes());
    Ok(Reply::json(body.into_bytes()))
}

/// The answer to `/api/query`.
pub fn answer_query(queries: &mut Queries, method: &str, url: &str) -> Reply {
    checked(method, url)
        .and_then(|target| match target.path.as_str() {
            "/api/move" => move_of(queries, &target),
            _ => query_of(queries, &target),
        })
        .unwrap_or_else(|reply| reply)
}

/// `/api/move?variant=V&position=P[&earlier=P0,P1,...][&rule=board|threefold][&extended=1]`:
/// the perfect player's move at P in the server's `--tie-break` style,
/// in a game whose earlier positions were P0, P1, ... (for the repetition
/// rule; those since the last capture or placement suffice). The object
/// names the move, the position after it and the move's value for the
/// side that makes it (a repetition draw is a draw).
fn move_of(queries: &mut Queries, target: &Target) -> Result<Reply, Reply> {
    target
        .only(&["variant", "position", "earlier", "rule", "extended"])
        .map_err(|e| Reply::bad_request(&e))?;
    let db =
        queries.site.database(target.require("variant").map_err(|e| Reply::bad_request(&e))?)?;
    let variant = db.variant();
    let extended = target.get("extended") == Some("1");
    let parse = |text: &str| {
        parse_position_in(db, text, extended, EXTENDED)
            .map_err(|e| Reply::bad_request(&one_line(&e)))
    };
    let position = parse(target.require("position").map_err(|e| Reply::bad_request(&e))?)?;
    let rule: Repetition = match target.get("rule") {
        Some(text) => text.parse().map_err(|e: String| Reply::bad_request(&e))?,
        None => Repetition::Board,
    };
    let earlier = match target.get("earlier") {
        Some(list) if !list.is_empty() => {
            list.split(',').map(parse).collect::<Result<Vec<Position>, Reply>>()?
        }
        _ => Vec::new(),
    };
    let mut game = Game::new(*earlier.first().unwrap_or(&position), rule);
    for p in earlier.iter().skip(1).chain(earlier.first().map(|_| &position)) {
        game.push(*p);
    }
    let style = queries.site.style;
    let choice = game.choose_move_by(queries.of(db), style).map_err(query_error)?;
    let Some(choice) = choice else {
        return Err(Reply::bad_request(&format!(
            "the game is over at {}: no move to choose",
            position.notation(variant)
        )));
    };
    let next = after(&position, choice.mv);
    let reply = MoveReply {
        mv: choice.mv.notation(variant),
        position: next.notation(variant),
        value: choice.value.kind(),
        style: style.to_string(),
    };
    Ok(Reply::json(json::body(&reply, 0)))
}

/// The answer of `/api/move`.
#[derive(Serialize)]
struct MoveReply {
    #[serde(rename = "move")]
    mv: String,
    position: String,
    value: &'static str,
    style: String,
}

/// The target of a GET (or HEAD) request; 405 for any other method.
fn checked(method: &str, url: &str) -> Result<Target, Reply> {
    if !matches!(method, "GET" | "HEAD") {
        return Err(Reply::error(
            405,
            &format!("method {method} is not allowed: the server answers GET only"),
        ));
    }
    Target::parse(url).map_err(|e| Reply::bad_request(&e))
}

fn asset(text: &'static str, content_type: &'static str) -> Reply {
    Reply { status: 200, content_type, body: text.as_bytes().to_vec() }
}

/// How a request asks for a position of a game from another start.
const EXTENDED: &str = "add extended=1";

/// `/api/query?variant=V&position=P[&moves=M][&extended=1]`: the bytes of
/// `morris query --json` (`extended=1` is its `--extended`).
fn query_of(queries: &mut Queries, target: &Target) -> Result<Reply, Reply> {
    target
        .only(&["variant", "position", "moves", "extended"])
        .map_err(|e| Reply::bad_request(&e))?;
    let db =
        queries.site.database(target.require("variant").map_err(|e| Reply::bad_request(&e))?)?;
    let variant = db.variant();
    let text = target.require("position").map_err(|e| Reply::bad_request(&e))?;
    let extended = target.get("extended") == Some("1");
    let position = parse_position_in(db, text, extended, EXTENDED)
        .map_err(|e| Reply::bad_request(&one_line(&e)))?;
    let position = match target.get("moves") {
        Some(moves) => play_moves(variant, &position, moves).map_err(query_error)?.0,
        None => position,
    };
    let analysis = queries.of(db).analyse(&position).map_err(query_error)?;
    let mut body = Vec::new();
    query::write_json(variant, &analysis, &mut body)
        .map_err(|e| Reply::error(500, &one_line(&e)))?;
    Ok(Reply::json(body))
}

/// The most positions one `POST /api/probe` may ask (10,000 take some
/// 400 KB of JSON, within the server's body limit).
pub const PROBE_LIMIT: usize = 10_000;

/// `POST /api/probe?variant=V[&moves=1]` with a JSON list of positions as
/// its body: a JSON list of what `morris probe` answers for them, in
/// order, an error object for each position that cannot be answered
/// (whose `line` is its place in the list, from 1). Answered from the
/// tables alone: a placement position without its table is an error
/// object that points to `/api/query`, which searches. 413 beyond
/// [`PROBE_LIMIT`] positions.
fn probe_of(site: &Site, method: &str, url: &str, body: &[u8]) -> Result<Reply, Reply> {
    if method != "POST" {
        return Err(Reply::error(
            405,
            &format!("method {method} is not allowed: POST a JSON list of positions to /api/probe"),
        ));
    }
    let target = Target::parse(url).map_err(|e| Reply::bad_request(&e))?;
    target.only(&["variant", "moves"]).map_err(|e| Reply::bad_request(&e))?;
    let db = site.database(target.require("variant").map_err(|e| Reply::bad_request(&e))?)?;
    let moves = match target.get("moves") {
        None | Some("0") | Some("false") => false,
        Some("1") | Some("true") => true,
        Some(other) => {
            return Err(Reply::bad_request(&format!(
                "parameter 'moves' is '{other}': expected 1 or 0"
            )))
        }
    };
    let texts = json_strings(body).map_err(|why| {
        Reply::bad_request(&format!(
            "the body must be a JSON list of positions (strings in the notation of `morris query`): {why}"
        ))
    })?;
    if texts.len() > PROBE_LIMIT {
        return Err(Reply::error(
            413,
            &format!(
                "the body lists {} positions; /api/probe answers at most {PROBE_LIMIT} at a time: split the list",
                texts.len()
            ),
        ));
    }
    let parsed: Vec<Result<Position, String>> = texts
        .iter()
        .map(|t| parse_position_in(db, t, false, EXTENDED).map_err(|e| one_line(&e)))
        .collect();
    let positions: Vec<Position> = parsed.iter().filter_map(|p| p.as_ref().ok().copied()).collect();
    let options = morris::probe::ProbeOptions { moves };
    let answers = morris::probe::probe(
        db,
        &positions,
        options,
        None,
        " in /api/probe: ask /api/query, which searches",
    );
    let mut answers = answers.iter();
    let items: Vec<ProbeItem> = parsed
        .iter()
        .zip(&texts)
        .enumerate()
        .map(|(i, (p, text))| {
            let answer = match p {
                Err(e) => Err(e.clone()),
                Ok(_) => answers
                    .next()
                    .expect("one answer per position")
                    .as_ref()
                    .map_err(crate::probe::error_text),
            };
            match answer {
                Ok(probed) => ProbeItem::Probed(ProbedJson::new(db.variant(), probed)),
                Err(error) => ProbeItem::Error { line: i as u64 + 1, input: text, error },
            }
        })
        .collect();
    // One item a line, each as `morris probe` prints it.
    Ok(Reply::json(json::body(&items, 1)))
}

/// An item of `/api/probe`'s list: `morris probe`'s line for the
/// position, or its error object.
#[derive(Serialize)]
#[serde(untagged)]
enum ProbeItem<'a> {
    Probed(ProbedJson),
    Error { line: u64, input: &'a str, error: String },
}

/// The strings of a JSON list of strings, read by serde_json (the body
/// comes from any client), or what is wrong with it: in the words of the
/// hand-written reader this replaced where the list itself is broken
/// (clients and tests know them; the byte named is now the one at fault,
/// where that reader named the one after it), else serde_json's message
/// with its line and column. serde_json's error codes are private, so its
/// messages are matched as text; `a_bad_probe_body_says_what_is_wrong_and_where`
/// pins every one, and a serde_json that words them otherwise fails it.
fn json_strings(body: &[u8]) -> Result<Vec<String>, String> {
    let text = std::str::from_utf8(body).map_err(|_| "it is not UTF-8".to_string())?;
    // JSON's whitespace: space, tab, line feed, carriage return.
    let json_space = [' ', '\t', '\n', '\r'];
    if !text.trim_start_matches(json_space).starts_with('[') {
        return Err("it does not start with '['".into());
    }
    serde_json::from_str(text).map_err(|e| {
        // serde_json's column counts bytes, from 1, to the byte it
        // stopped at (read or looked at).
        let line_start: usize =
            text.split_inclusive('\n').take(e.line().saturating_sub(1)).map(str::len).sum();
        let byte = (line_start + e.column()).saturating_sub(1).min(text.len());
        let at = match text.get(byte..).and_then(|rest| rest.chars().next()) {
            Some(c) if !e.is_eof() => format!("'{}' at byte {byte}", c.escape_default()),
            _ => format!("at its end (byte {})", text.len()),
        };
        // Its message without " at line L column C".
        let message = e.to_string();
        let what = message.rsplit_once(" at line ").map_or(&message[..], |(what, _)| what);
        match what {
            "EOF while parsing a list" if text.trim_end_matches(json_space).ends_with('[') => {
                format!("expected a string {at}")
            }
            "EOF while parsing a list" => format!("expected ',' or ']' {at}"),
            "EOF while parsing a value" | "trailing comma" => format!("expected a string {at}"),
            "EOF while parsing a string" => "a string is not closed".into(),
            "expected `,` or `]`" => format!("expected ',' or ']' {at}"),
            "trailing characters" => format!("something follows the list: {at}"),
            // A value that is not a string ("invalid type: integer `1`,
            // expected a string"), a bad escape, a control character:
            // serde_json's words and place.
            _ => message.clone(),
        }
    })
}

/// 404 for a missing sector (the message names the solve command) or
/// for distances of a sector of which the database holds only the
/// win/draw/loss tier (the perfect player's move), 400 for a move that
/// cannot be played, 500 for damaged tables; the message is the CLI's,
/// causes included.
fn query_error(err: QueryError) -> Reply {
    let status = match &err {
        QueryError::Db(DbError::Missing { .. } | DbError::NeedsFullTier(_)) => 404,
        QueryError::Notation(_) | QueryError::Illegal { .. } => 400,
        _ => 500,
    };
    Reply::error(status, &one_line(&err.into()))
}

/// `/api/stats?variant=V[&all=true]`: the rows of `morris stats --json`.
fn stats_of(site: &Site, target: &Target) -> Result<Reply, Reply> {
    target.only(&["variant", "all"]).map_err(|e| Reply::bad_request(&e))?;
    let db = site.database(target.require("variant").map_err(|e| Reply::bad_request(&e))?)?;
    let all = match target.get("all") {
        None | Some("false") => false,
        Some("true") => true,
        Some(other) => {
            return Err(Reply::bad_request(&format!(
                "parameter 'all' is '{other}': expected true or false"
            )))
        }
    };
    let mut body = Vec::new();
    match stats::json(db, all, &mut body) {
        Ok(()) => Ok(Reply::json(body)),
        Err(e) if e.downcast_ref::<NoTables>().is_some() => Err(Reply::error(404, &one_line(&e))),
        Err(e) => Err(Reply::error(500, &one_line(&e))),
    }
}

/// `/api/variants`: per known variant, its rules, board, start position,
/// how much of it the directory holds, and the start's value when a
/// table gives it.
fn variants(site: &Site) -> Reply {
    let files = site.databases.first().map(|db| files_in(db.dir())).unwrap_or_default();
    let listing = Variants {
        database: site
            .databases
            .first()
            .map(|db| db.dir().display().to_string())
            .unwrap_or_default(),
        variants: site.databases.iter().map(|db| variant_json(db, &files)).collect(),
    };
    // The object and its list break lines; a variant is one line.
    Reply::json(json::body(&listing, 2))
}

/// The answer of `/api/variants`.
#[derive(Serialize)]
struct Variants<'a> {
    database: String,
    variants: Vec<VariantJson<'a>>,
}

/// A variant of `/api/variants`.
#[derive(Serialize)]
struct VariantJson<'a> {
    name: &'a str,
    rules: String,
    stones: u8,
    start: String,
    start_value: Option<StartValue>,
    moving: Solved,
    placement: Solved,
    board: BoardJson<'a>,
}

/// A phase's sectors: how many, how many have a table.
#[derive(Serialize)]
struct Solved {
    sectors: usize,
    solved: usize,
}

/// The start's value.
#[derive(Serialize)]
struct StartValue {
    value: &'static str,
    plies: Option<u16>,
}

/// The board's geometry (see [`board_json`]).
#[derive(Serialize)]
struct BoardJson<'a> {
    grid: usize,
    points: Vec<PointJson<'a>>,
    /// Pairs of neighbours' names.
    lines: Vec<[&'a str; 2]>,
    /// The names of each mill's points.
    mills: Vec<Vec<&'a str>>,
}

/// A point of the board, y = 0 at the bottom.
#[derive(Serialize)]
struct PointJson<'a> {
    name: &'a str,
    x: u8,
    y: u8,
}

/// The names of the files in `dir` (none if it cannot be read). One
/// directory read per listing instead of a `stat` per sector of every
/// variant, some 2,000 of them.
fn files_in(dir: &Path) -> HashSet<OsString> {
    std::fs::read_dir(dir)
        .map(|entries| entries.filter_map(|e| e.ok()).map(|e| e.file_name()).collect())
        .unwrap_or_default()
}

/// Whether a table of `sector`, of either tier, or its stub of a derived
/// sector, is among `files`.
fn has_table(db: &Database, files: &HashSet<OsString>, sector: Sector) -> bool {
    [db.table_path(sector), db.wdl_path(sector), db.derived_path(sector)]
        .iter()
        .any(|path| path.file_name().is_some_and(|name| files.contains(name)))
}

fn variant_json<'a>(db: &'a Database, files: &HashSet<OsString>) -> VariantJson<'a> {
    let v = db.variant();
    let start = Position::start(v);
    let solved = |sectors: &[Sector]| Solved {
        sectors: sectors.len(),
        solved: sectors.iter().filter(|&&s| has_table(db, files, s)).count(),
    };
    VariantJson {
        name: v.name(),
        rules: describe(v),
        stones: v.stones(),
        start: start.notation(v),
        start_value: start_value(db, files, &start),
        moving: solved(&moving_sectors(v)),
        placement: solved(&placement_sectors(v)),
        board: board_json(v.board()),
    }
}

/// The start's value from its table, or `null`: the placement search
/// could take minutes (nine), which a listing must not wait for. From
/// the win/draw/loss tier, `plies` is `null`.
fn start_value(db: &Database, files: &HashSet<OsString>, start: &Position) -> Option<StartValue> {
    let state = start.state();
    if !has_table(db, files, Sector::of(&state)) {
        return None;
    }
    let (value, plies) = match db.stored(&state).ok()? {
        Stored::Exact(value) => (value.kind(), value.plies()),
        Stored::Outcome(outcome) => (outcome.kind(), None),
    };
    Some(StartValue { value, plies })
}

/// The board's geometry for drawing it: the grid size, each point's name
/// and (x, y) with y = 0 at the bottom, the lines joining neighbours, and
/// the mills.
fn board_json(b: &Board) -> BoardJson<'_> {
    let name = |p| b.point_name(p);
    let mut pts = Vec::new();
    let mut lines = Vec::new();
    for p in points(b.all()) {
        let (x, y) = b.coords(p);
        pts.push(PointJson { name: name(p), x, y });
        for q in points(b.adjacent(p)).filter(|&q| q > p) {
            lines.push([name(p), name(q)]);
        }
    }
    let mills = b.mills().iter().map(|&m| points(m).map(name).collect()).collect();
    BoardJson { grid: b.grid(), points: pts, lines, mills }
}
#[cfg(test)]
mod tests {
    use super::*;
    use morris::value::Value;
    use morris::variant::VARIANT_NAMES;

    #[test]
    fn probe_bodies_are_read_as_json_lists_of_strings() {
        assert_eq!(json_strings(b" [ ] ").unwrap(), Vec::<String>::new());
        assert_eq!(
            json_strings(br#"["start", "a\"b\\c\u0041\n" ,"x"]"#).unwrap(),
            ["start", "a\"b\\cA\n", "x"]
        );
        for bad in [&b""[..], b"{}", b"[1]", b"[\"a\",]", b"[\"a\"", b"[\"a\"] x", b"[\"a", b"\xff"]
        {
            assert!(json_strings(bad).is_err(), "{}", String::from_utf8_lossy(bad));
        }
        // Escapes: a surrogate pair is one character (the hand-written
        // reader made two U+FFFD of it).
        assert_eq!(
            json_strings(br#"["caf\u00e9", "\ud834\udd1e", "\/\b\f\r\t"]"#).unwrap(),
            ["café", "\u{1d11e}", "/\u{8}\u{c}\r\t"]
        );
    }

    /// What is wrong with a body, in the words of the reader serde_json
    /// replaced; serde_json's own where those had none. A change of
    /// serde_json's messages shows here.
    #[test]
    fn a_bad_probe_body_says_what_is_wrong_and_where() {
        for (body, why) in [
            (&b"\xff"[..], "it is not UTF-8"),
            (b"", "it does not start with '['"),
            (b" {\"positions\": []}", "it does not start with '['"),
            (b"[", "expected a string at its end (byte 1)"),
            (b"[\"a\",", "expected a string at its end (byte 5)"),
            (b"[\"a\",]", "expected a string ']' at byte 5"),
            (b"[\"a\"", "expected ',' or ']' at its end (byte 4)"),
            (b"[\"a\" \"b\"]", "expected ',' or ']' '\\\"' at byte 5"),
            (b"[\"a", "a string is not closed"),
            (b"[\"a\"]\n x", "something follows the list: 'x' at byte 7"),
            (b"[1, 2]", "invalid type: integer `1`, expected a string at line 1 column 2"),
            (b"[\"a\", null]", "invalid type: null, expected a string at line 1 column 10"),
            (b"[\"\\x\"]", "invalid escape at line 1 column 4"),
            (b"[\"\\ud800\"]", "unexpected end of hex escape at line 1 column 9"),
            (b"[\"a\tb\"]", "control character (\\u0000-\\u001F) found while parsing a string at line 1 column 4"),
        ] {
            assert_eq!(json_strings(body), Err(why.to_string()), "{}", String::from_utf8_lossy(body));
        }
    }

    #[test]
    fn every_known_variant_is_served_and_nothing_else() {
        let databases =
            super::super::databases(Path::new("/nonexistent"), Default::default()).unwrap();
        let site = Site::new(databases, Style::DEFAULT);
        for name in VARIANT_NAMES {
            assert!(site.database(name).is_ok());
        }
        for name in ["", "..", "../nine", "nine/..", "NINE", "/etc/passwd"] {
            let reply = site.database(name).err().expect(name);
            assert_eq!(reply.status, 400);
        }
        assert_eq!(Value::Draw.kind(), "draw");
    }
}
