//! The page of `morris serve` in a real browser: a headless Chromium
//! (driven over the DevTools protocol, see `chromium/mod.rs`) opens the
//! page from a running server on Six Men's Morris solved for the test,
//! clicks moves, reads the DOM and saves screenshots under
//! `target/browser/`.
//!
//! Without Chromium the tests print that they were skipped, unless `CI`
//! or `MORRIS_BROWSER_TESTS` is set: then its absence is a failure
//! (`.ci/run` installs it).

mod chromium;
mod common;
mod server;

use chromium::Browser;
use serde_json::{json, Value as Json};
use server::{encode, six, Server};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};

/// Chromium, or `None` (after saying so) when the tests may be skipped.
fn chromium_or_skip(test: &str) -> Option<PathBuf> {
    if let Some(path) = chromium::find() {
        return Some(path);
    }
    let required =
        std::env::var_os("CI").is_some() || std::env::var_os("MORRIS_BROWSER_TESTS").is_some();
    assert!(!required, "chromium is not installed but CI or MORRIS_BROWSER_TESTS asks for the browser tests (apt-get install chromium)");
    eprintln!(
        "SKIPPED {test}: no chromium on PATH (apt-get install chromium, or set MORRIS_CHROMIUM)"
    );
    None
}

impl Server {
    fn url(&self, query: &[(&str, &str)]) -> String {
        let params: Vec<String> = query.iter().map(|(k, v)| format!("{k}={}", encode(v))).collect();
        format!("http://{}/?{}", self.addr, params.join("&"))
    }

    /// The JSON of a GET on the API, which must succeed.
    fn api(&self, path: &str, query: &[(&str, &str)]) -> Json {
        let params: Vec<String> = query.iter().map(|(k, v)| format!("{k}={}", encode(v))).collect();
        let mut stream = TcpStream::connect(&self.addr).unwrap();
        write!(stream, "GET {path}?{} HTTP/1.0\r\nHost: {}\r\n\r\n", params.join("&"), self.addr)
            .unwrap();
        let mut response = String::new();
        stream.read_to_string(&mut response).unwrap();
        let (head, body) = response.split_once("\r\n\r\n").unwrap();
        assert!(
            head.starts_with("HTTP/1.1 200") || head.starts_with("HTTP/1.0 200"),
            "{path} {query:?}: {response}"
        );
        serde_json::from_str(body).unwrap()
    }

    /// Whether `moves` can all be played from `position` in six, each a
    /// quiet move (the notation of a capture has an `x`).
    fn raw_query(&self, position: &str, moves: &str) -> bool {
        let mut stream = TcpStream::connect(&self.addr).unwrap();
        let target =
            format!("/api/query?variant=six&position={}&moves={}", encode(position), encode(moves));
        write!(stream, "GET {target} HTTP/1.0\r\nHost: {}\r\n\r\n", self.addr).unwrap();
        let mut response = String::new();
        stream.read_to_string(&mut response).unwrap();
        response.starts_with("HTTP/1.1 200") || response.starts_with("HTTP/1.0 200")
    }

    /// `/api/query` of `position` in six.
    fn query(&self, position: &str) -> Json {
        self.api("/api/query", &[("variant", "six"), ("position", position)])
    }
}

/// Where the screenshots go: `target/browser/`.
fn shot(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join("target").join("browser").join(name)
}

/// Waits until no request of the page is under way and `condition` holds.
fn settle(browser: &mut Browser, condition: &str, what: &str) {
    browser.wait_for(&format!("document.body.dataset.inflight === '0' && ({condition})"), what);
}

fn text_of(browser: &mut Browser, selector: &str) -> String {
    let js = format!(
        "(document.querySelector({}) || {{textContent: null}}).textContent",
        json!(selector)
    );
    browser.eval(&js).as_str().unwrap_or_else(|| panic!("no element {selector}")).to_string()
}

fn count(browser: &mut Browser, selector: &str) -> u64 {
    browser
        .eval(&format!("document.querySelectorAll({}).length", json!(selector)))
        .as_u64()
        .unwrap()
}

/// The page's URL parameter `name`.
fn url_param(browser: &mut Browser, name: &str) -> String {
    let js = format!("new URLSearchParams(location.search).get({})", json!(name));
    browser.eval(&js).as_str().unwrap_or_default().to_string()
}

/// The banner's words for a query answer, as the page must write them.
fn banner_words(answer: &Json) -> String {
    let who = if answer["to_move"] == "white" { "White" } else { "Black" };
    let words = match (answer["value"].as_str().unwrap(), answer["plies"].as_u64()) {
        ("draw", _) => "Draw".to_string(),
        (value, Some(1)) => {
            format!("{who} {}s in 1 ply", if value == "win" { "win" } else { "lose" })
        }
        (value, Some(n)) => {
            format!("{who} {}s in {n} plies", if value == "win" { "win" } else { "lose" })
        }
        (value, None) => format!("{who} {}s", if value == "win" { "win" } else { "lose" }),
    };
    format!("{who} to move: {words}")
}

/// The move list the page shows: each item's move and its badge.
fn shown_moves(browser: &mut Browser) -> Vec<(String, String)> {
    let js = "[...document.querySelectorAll('#moves li')].map(li => [li.dataset.move, li.querySelector('.badge').textContent])";
    serde_json::from_value(browser.eval(js)).unwrap()
}

/// The move list the page must show for an answer: every move in the
/// server's order, W/D/L with the distance.
fn expected_moves(answer: &Json) -> Vec<(String, String)> {
    answer["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            let letter = m["value"].as_str().unwrap()[..1].to_uppercase();
            let plies = m["plies"].as_u64().map_or(String::new(), |d| d.to_string());
            (m["move"].as_str().unwrap().to_string(), letter + &plies)
        })
        .collect()
}

/// Checks that the page shows `answer`: banner, move list in order, and a
/// mark on the board at each point a click would play.
fn assert_shows(browser: &mut Browser, answer: &Json) {
    assert_eq!(text_of(browser, "#banner"), banner_words(answer));
    assert_eq!(shown_moves(browser), expected_moves(answer));
    assert_eq!(browser.eval("document.getElementById('position').value"), answer["position"]);
    for m in answer["moves"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| !m["move"].as_str().unwrap().contains('-'))
    {
        // A placement is marked at its point, in its value's colour.
        let to = &m["move"].as_str().unwrap()[..2];
        let mark = format!("#board .mark.{}[data-point='{to}']", m["value"].as_str().unwrap());
        assert_eq!(count(browser, &mark), 1, "no mark {mark} for {}", m["move"]);
    }
    assert_eq!(browser.errors, Vec::<String>::new(), "the page reported errors");
}

#[test]
fn play_undo_redo_and_links_in_a_real_browser() {
    let Some(chromium) = chromium_or_skip("play_undo_redo_and_links_in_a_real_browser") else {
        return;
    };
    let server = Server::start(six());
    let mut browser = Browser::start(&chromium, 1200, 900);

    // The start: what the server says, drawn.
    browser.navigate(&server.url(&[("variant", "six")]));
    settle(&mut browser, "document.querySelectorAll('#moves li').length > 0", "the start's moves");
    let start = server.query("start");
    assert_shows(&mut browser, &start);
    assert_eq!(count(&mut browser, "#board .stone"), 0);
    assert_eq!(
        count(&mut browser, "#board .mark"),
        start["moves"].as_array().unwrap().len() as u64
    );

    // Click the best move on the board.
    let best = &start["moves"][0];
    let to = best["move"].as_str().unwrap();
    browser.click(&format!("#board .target[data-point='{to}']"));
    settle(
        &mut browser,
        "document.querySelectorAll('#history li').length === 2",
        "the move to be played",
    );
    let after = server.query(best["position"].as_str().unwrap());
    assert_shows(&mut browser, &after);
    assert_eq!(url_param(&mut browser, "position"), best["position"].as_str().unwrap());
    assert_eq!(count(&mut browser, &format!("#board .stone.white[data-point='{to}']")), 1);
    assert_eq!(count(&mut browser, "#board .stone"), 1);
    assert_eq!(
        count(&mut browser, &format!("#board .last[data-point='{to}']")),
        1,
        "the last move is marked"
    );
    assert_eq!(text_of(&mut browser, "#history li.current"), to);

    // Undo with the button, redo with the arrow key.
    browser.click("#undo");
    settle(
        &mut browser,
        "document.querySelector('#banner').textContent.startsWith('White')",
        "undo",
    );
    assert_shows(&mut browser, &start);
    assert_eq!(count(&mut browser, "#board .stone"), 0);
    assert_eq!(browser.eval("document.getElementById('redo').disabled"), json!(false));
    browser.key("ArrowRight", 39);
    settle(
        &mut browser,
        "document.querySelector('#banner').textContent.startsWith('Black')",
        "redo by the arrow key",
    );
    assert_shows(&mut browser, &after);

    // A link with a position in it: a few plies of perfect play on.
    let line: Vec<&str> =
        start["line"].as_array().unwrap().iter().take(5).map(|m| m.as_str().unwrap()).collect();
    let deep = server.api(
        "/api/query",
        &[("variant", "six"), ("position", "start"), ("moves", line.join(" ").as_str())],
    );
    let position = deep["position"].as_str().unwrap();
    browser.navigate(&server.url(&[("variant", "six"), ("position", position)]));
    settle(
        &mut browser,
        "document.querySelectorAll('#moves li').length > 0",
        "the linked position",
    );
    assert_shows(&mut browser, &deep);
    let fields: Vec<&str> = position.split(' ').collect();
    let on_board = |c: char| fields[0].chars().filter(|&x| x == c).count() as u64;
    assert_eq!(count(&mut browser, "#board .stone.white"), on_board('W'));
    assert_eq!(count(&mut browser, "#board .stone.black"), on_board('B'));
    let hands = format!("White has {} in hand, Black has {} in hand", fields[2], fields[3]);
    assert_eq!(text_of(&mut browser, "#hands"), hands);
    browser.screenshot(&shot("six.png"));
}

#[test]
fn refused_and_missing_positions_are_explained() {
    let Some(chromium) = chromium_or_skip("refused_and_missing_positions_are_explained") else {
        return;
    };
    let server = Server::start(six());
    let mut browser = Browser::start(&chromium, 1000, 800);

    // A position the server refuses: the page says why and shows the start.
    browser.navigate(&server.url(&[("variant", "six"), ("position", "WWWW/zz w 1 1")]));
    settle(&mut browser, "!document.getElementById('notice').hidden", "the refusal");
    assert!(
        text_of(&mut browser, "#notice").starts_with("Refused: "),
        "{}",
        text_of(&mut browser, "#notice")
    );
    assert_eq!(count(&mut browser, "#board .stone"), 0);

    // A variant with no tables: not in this database, with the command.
    browser.navigate(&server.url(&[("variant", "nine")]));
    settle(&mut browser, "!document.getElementById('notice').hidden", "the missing tables");
    let notice = text_of(&mut browser, "#notice");
    assert!(notice.starts_with("Not in this database."), "{notice}");
    assert!(
        text_of(&mut browser, "#notice code").starts_with("morris solve --variant nine"),
        "{notice}"
    );
    assert_eq!(count(&mut browser, "#moves li"), 0);
    assert_eq!(browser.errors, Vec::<String>::new(), "the page reported errors");
}

/// The moves a page shows as `data-move` of `#moves li`, in order.
fn move_names(browser: &mut Browser) -> Vec<String> {
    shown_moves(browser).into_iter().map(|(m, _)| m).collect()
}

/// Chooses `value` in the `<select id=...>` and tells the page.
fn select(browser: &mut Browser, id: &str, value: &str) {
    browser.eval(&format!(
        "(() => {{ const s = document.getElementById({}); s.value = {}; s.dispatchEvent(new Event('change')); }})()",
        json!(id),
        json!(value)
    ));
}

/// Writes `value` into the input `id` as a user would, then tells the page.
fn type_into(browser: &mut Browser, id: &str, value: &str) {
    browser.eval(&format!(
        "(() => {{ const s = document.getElementById({}); s.value = {}; s.dispatchEvent(new Event('input')); }})()",
        json!(id),
        json!(value)
    ));
}

#[test]
fn editor_perfect_player_chart_repetition_and_database_view_in_a_real_browser() {
    let Some(chromium) = chromium_or_skip(
        "editor_perfect_player_chart_repetition_and_database_view_in_a_real_browser",
    ) else {
        return;
    };
    let server = Server::start(six());
    let mut browser = Browser::start(&chromium, 1200, 1000);
    browser.navigate(&server.url(&[("variant", "six")]));
    settle(&mut browser, "document.querySelectorAll('#moves li').length > 0", "the start");

    // The editor: a White stone on the first point of the notation, a
    // Black one on the ninth (two clicks: White, then Black), 5 in hand each.
    let variants = server.api("/api/variants", &[]);
    let six = variants["variants"].as_array().unwrap().iter().find(|v| v["name"] == "six").unwrap();
    let points: Vec<&str> = six["board"]["points"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    browser.click("#edit");
    settle(&mut browser, "!document.getElementById('editor').hidden", "the editor");
    browser.click(&format!("#board .target[data-point='{}']", points[0]));
    browser.click(&format!("#board .target[data-point='{}']", points[8]));
    browser.click(&format!("#board .target[data-point='{}']", points[8]));
    type_into(&mut browser, "edit-white-hand", "5");
    type_into(&mut browser, "edit-black-hand", "5");
    let edited = "W......./B....... w 5 5";
    assert_eq!(
        browser.eval("document.getElementById('position').value"),
        json!(edited),
        "the notation exported while editing"
    );
    browser.click("#edit-done");
    settle(&mut browser, "document.getElementById('editor').hidden && document.querySelectorAll('#moves li').length > 0", "the edited position");
    let set = server.query(edited);
    assert_shows(&mut browser, &set);
    assert_eq!(url_param(&mut browser, "position"), edited, "the position lives in the URL");

    // A position the server refuses stays in the editor, with the reason.
    browser.click("#edit");
    type_into(&mut browser, "edit-white-hand", "9");
    browser.click("#edit-done");
    settle(
        &mut browser,
        "!document.getElementById('notice').hidden",
        "the refusal of an edited position",
    );
    assert!(text_of(&mut browser, "#notice").starts_with("Refused: "));
    assert_eq!(browser.eval("document.getElementById('editor').hidden"), json!(false));
    browser.click("#edit-cancel");
    settle(&mut browser, "document.getElementById('editor').hidden", "the editor to close");

    // Against the perfect player: the human takes White and plays the
    // best move; Black answers at once with one of its best moves.
    select(&mut browser, "mode", "White");
    let mine = &set["moves"][0];
    browser.click(&format!("#board .target[data-point='{}']", mine["move"].as_str().unwrap()));
    settle(
        &mut browser,
        "document.querySelectorAll('#history li').length === 4",
        "the perfect player's answer",
    );
    let asked = server.query(mine["position"].as_str().unwrap());
    let answer = browser.eval("document.querySelector('#history li:last-child').textContent");
    let best = &asked["moves"][0];
    let equally_good: Vec<&str> = asked["moves"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["value"] == best["value"] && m["plies"] == best["plies"])
        .map(|m| m["move"].as_str().unwrap())
        .collect();
    assert!(
        equally_good.contains(&answer.as_str().unwrap()),
        "{answer} is not among the best {equally_good:?}"
    );
    assert!(text_of(&mut browser, "#banner").starts_with("White to move"));

    // Swap sides: the perfect player now has White, which is to move.
    browser.click("#swap");
    settle(
        &mut browser,
        "document.querySelectorAll('#history li').length === 5",
        "the perfect player's move as White",
    );
    assert!(text_of(&mut browser, "#banner").starts_with("Black to move"));
    assert_eq!(browser.eval("document.getElementById('mode').value"), json!("Black"));

    // Hide the evaluation: no value in the banner, no coloured marks, no
    // move list or line; the legal moves are still marked.
    browser.click("#hide-eval");
    settle(&mut browser, "document.body.classList.contains('hide-eval')", "the evaluation to hide");
    assert_eq!(text_of(&mut browser, "#banner"), "Black to move");
    assert_eq!(
        count(
            &mut browser,
            "#board .mark.win, #board .mark.draw, #board .mark.loss, #board .mark-text"
        ),
        0
    );
    assert!(count(&mut browser, "#board .mark.neutral") > 0);
    assert_eq!(browser.eval("document.getElementById('moves').offsetParent === null"), json!(true));
    browser.click("#hide-eval");
    select(&mut browser, "mode", "both");

    // The chart: from the edited position (a win for White), a move that
    // throws the win away is marked.
    browser.navigate(&server.url(&[("variant", "six"), ("position", edited)]));
    settle(
        &mut browser,
        "document.querySelectorAll('#moves li').length > 0",
        "the edited position from its link",
    );
    assert_eq!(set["value"], "win", "the edited position is a win: {set}");
    let bad = set["moves"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["value"] != "win")
        .expect("a move that throws the win away");
    let bad_move = bad["move"].as_str().unwrap();
    browser.click(&format!("#moves li[data-move='{bad_move}']"));
    settle(&mut browser, "document.querySelectorAll('#history li').length === 2", "the bad move");
    assert_eq!(
        count(&mut browser, "#chart .blunder[data-ply='1']"),
        1,
        "the bad move is marked on the chart"
    );
    let blunders = text_of(&mut browser, "#blunders");
    let to = if bad["value"] == "draw" { "a draw" } else { "a loss" };
    assert_eq!(blunders, format!("Results thrown away: ply 1 {bad_move} (a win to {to})."));
    assert_eq!(count(&mut browser, "#chart .chart-dot"), 2);
    browser.screenshot(&shot("six-features.png"));

    // Repetition: in the moving phase, a stone goes and comes back on
    // each side; under the rules text the board is back: a draw. Under
    // threefold the game goes on.
    let (moving, cycle) = moving_cycle(&server);
    browser.navigate(&server.url(&[("variant", "six"), ("position", moving.as_str())]));
    settle(
        &mut browser,
        "document.querySelectorAll('#moves li').length > 0",
        "the moving-phase position",
    );
    for (i, m) in cycle.iter().enumerate() {
        assert!(!text_of(&mut browser, "#banner").contains("repetition"), "before move {i}");
        assert!(move_names(&mut browser).contains(m), "{m} not offered");
        browser.click(&format!("#moves li[data-move='{m}']"));
        settle(
            &mut browser,
            &format!("document.querySelectorAll('#history li').length === {}", i + 2),
            "a move of the cycle",
        );
    }
    assert_eq!(
        text_of(&mut browser, "#banner"),
        "Game over: a draw by repetition (the board of ply 0 is back)"
    );
    assert_eq!(count(&mut browser, "#board .mark"), 0, "no moves after the end");
    select(&mut browser, "repetition", "threefold");
    settle(
        &mut browser,
        "!document.querySelector('#banner').textContent.includes('repetition')",
        "threefold to let the game go on",
    );
    assert!(count(&mut browser, "#board .mark") > 0);

    // The database view: one row per sector with its bars, and the histogram.
    let stats = server.api("/api/stats", &[("variant", "six")]);
    browser.eval("document.getElementById('database').open = true");
    settle(
        &mut browser,
        "document.querySelectorAll('#db-sectors tbody tr').length > 0",
        "the database view",
    );
    assert_eq!(count(&mut browser, "#db-sectors tbody tr"), stats.as_array().unwrap().len() as u64);
    let first = &stats[0];
    let row =
        format!("#db-sectors tr[data-sector='{}'] .bar .part", first["sector"].as_str().unwrap());
    assert_eq!(count(&mut browser, &row), 3);
    let share = browser
        .eval(&format!("document.querySelector({}).style.width", json!(format!("{row}.win"))));
    let wins = first["wins"].as_f64().unwrap() / first["states"].as_f64().unwrap() * 100.0;
    let shown: f64 = share.as_str().unwrap().trim_end_matches('%').parse().unwrap();
    assert!((shown - wins).abs() < 0.01, "{shown} % shown for {wins} % wins");
    // The histogram shows the first sector's distances, one bar per
    // distance; clicking another sector's row shows that one's.
    for (i, sector) in [(0, first), (3, &stats[3])] {
        let name = sector["sector"].as_str().unwrap();
        if i > 0 {
            browser.click(&format!("#db-sectors tr[data-sector='{name}']"));
        }
        let distances = server.api("/api/distances", &[("variant", "six"), ("sector", name)]);
        let bars = |side: &str| distances[side].as_array().unwrap().len() as u64;
        settle(
            &mut browser,
            &format!("document.querySelector('#db-sector-name').textContent === '{name}' && document.querySelectorAll('#db-histogram .hist-bar').length > 0"),
            "a sector's distances",
        );
        assert_eq!(count(&mut browser, "#db-histogram .hist-bar.win"), bars("wins"), "{name}");
        assert_eq!(count(&mut browser, "#db-histogram .hist-bar.loss"), bars("losses"), "{name}");
        assert_eq!(count(&mut browser, "#db-sectors tr.chosen"), 1);
        let deepest = sector["max_win"].as_u64().unwrap();
        if deepest > 0 {
            let bar = browser.eval(&format!("document.querySelector(\"#db-histogram .hist-bar.win[data-plies='{deepest}']\") !== null"));
            assert_eq!(bar, json!(true), "{name}: the longest win has its bar");
        }
    }
    browser.eval("document.getElementById('database').scrollIntoView()");
    browser.screenshot(&shot("six-database.png"));
    assert_eq!(browser.errors, Vec::<String>::new(), "the page reported errors");
}

/// A moving-phase position of six from the perfect-play line, and four
/// quiet moves from it (a-b, c-d, b-a, d-c) that bring its board back.
fn moving_cycle(server: &Server) -> (String, Vec<String>) {
    let start = server.query("start");
    let line: Vec<&str> =
        start["line"].as_array().unwrap().iter().map(|m| m.as_str().unwrap()).collect();
    let quiet = |answer: &Json| -> Vec<String> {
        answer["moves"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["move"].as_str().unwrap().to_string())
            .filter(|m| m.contains('-') && !m.contains('x'))
            .collect()
    };
    let back = |m: &str| m.split_once('-').map(|(a, b)| format!("{b}-{a}")).unwrap();
    for n in 12..line.len() {
        let p0 = server.api(
            "/api/query",
            &[("variant", "six"), ("position", "start"), ("moves", line[..n].join(" ").as_str())],
        );
        for m1 in quiet(&p0) {
            let p1 = server.query(
                p0["moves"].as_array().unwrap().iter().find(|m| m["move"] == m1.as_str()).unwrap()
                    ["position"]
                    .as_str()
                    .unwrap(),
            );
            for m2 in quiet(&p1) {
                let moves = [m1.clone(), m2.clone(), back(&m1), back(&m2)];
                let all = moves.join(" ");
                let played = server.raw_query(p0["position"].as_str().unwrap(), &all);
                if played {
                    return (p0["position"].as_str().unwrap().to_string(), moves.to_vec());
                }
            }
        }
    }
    panic!("no moving-phase cycle along the line of six");
}
