//! A headless Chromium driven over the DevTools protocol, for the browser
//! tests of `morris serve`.
//!
//! Chromium is started with `--remote-debugging-pipe`: it reads commands
//! from file descriptor 3 and writes answers and events to 4, each message
//! a JSON text ended by a NUL byte. A pipe needs no port, no WebSocket and
//! no crate beyond `libc` (already a dependency), and nothing at run time
//! touches the network. One page target is attached in flat mode; every
//! command of the tests goes to it.

use serde_json::{json, Value as Json};
use std::fs::File;
use std::io::{BufRead, BufReader, Write};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

/// How long one DevTools command may take before the test gives up. Not a
/// timing assertion: a guard so that a hung browser fails the test instead
/// of hanging CI. Waits for the page (`wait_for`) have their own bound.
const ANSWER_BOUND: Duration = Duration::from_secs(120);

/// The Chromium binary to use: `$MORRIS_CHROMIUM`, else the first of the
/// usual names found on `PATH`.
pub fn find() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("MORRIS_CHROMIUM") {
        return Some(PathBuf::from(path));
    }
    let path = std::env::var_os("PATH")?;
    ["chromium", "chromium-browser", "google-chrome", "google-chrome-stable"]
        .iter()
        .flat_map(|name| std::env::split_paths(&path).map(move |dir| dir.join(name)))
        .find(|candidate| candidate.is_file())
}

/// A running headless Chromium with one page, killed when dropped.
pub struct Browser {
    child: Child,
    commands: File,
    messages: mpsc::Receiver<Json>,
    session: String,
    next_id: u64,
    /// Uncaught exceptions and console errors of the page, in order.
    pub errors: Vec<String>,
    _profile: tempfile::TempDir,
}

/// Two pipes as (read end, write end).
fn pipe() -> (OwnedFd, OwnedFd) {
    let mut fds = [0; 2];
    // Safety: `fds` has room for the two descriptors pipe2 writes.
    let rc = unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) };
    assert_eq!(rc, 0, "pipe2: {}", std::io::Error::last_os_error());
    // Safety: both descriptors were just created and are owned by no one else.
    unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) }
}

impl Browser {
    /// Starts `chromium` headless with a fresh profile and a window of
    /// `width` x `height` CSS pixels, attached to one blank page.
    pub fn start(chromium: &Path, width: u32, height: u32) -> Browser {
        let profile = tempfile::tempdir().unwrap();
        let (their_commands, our_commands) = pipe();
        let (our_messages, their_messages) = pipe();
        let (cmd_fd, msg_fd) = (their_commands.as_raw_fd(), their_messages.as_raw_fd());
        let log = File::create(profile.path().join("chromium.log")).unwrap();
        let mut command = Command::new(chromium);
        command
            .args([
                "--headless",
                "--remote-debugging-pipe",
                // Root in a container has no user namespace to sandbox in.
                "--no-sandbox",
                "--disable-gpu",
                "--disable-dev-shm-usage",
                "--no-first-run",
                "--no-default-browser-check",
                "--disable-extensions",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--hide-scrollbars",
                "--mute-audio",
                &format!("--window-size={width},{height}"),
                &format!("--user-data-dir={}", profile.path().display()),
                "about:blank",
            ])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(log);
        // Safety: between fork and exec only async-signal-safe calls
        // (fcntl, dup2, close). The pipe ends are first copied above 9 so
        // that moving them to 3 and 4 cannot overwrite one another; dup2
        // leaves the copies at 3 and 4 without close-on-exec.
        unsafe {
            command.pre_exec(move || {
                let a = libc::fcntl(cmd_fd, libc::F_DUPFD, 10);
                let b = libc::fcntl(msg_fd, libc::F_DUPFD, 10);
                if a < 0 || b < 0 || libc::dup2(a, 3) < 0 || libc::dup2(b, 4) < 0 {
                    return Err(std::io::Error::last_os_error());
                }
                libc::close(a);
                libc::close(b);
                Ok(())
            });
        }
        let child =
            command.spawn().unwrap_or_else(|e| panic!("cannot start {}: {e}", chromium.display()));
        drop((their_commands, their_messages));
        let (to_test, messages) = mpsc::channel();
        let reader = BufReader::new(File::from(our_messages));
        std::thread::spawn(move || {
            for message in reader.split(0) {
                let Ok(bytes) = message else { break };
                let Ok(json) = serde_json::from_slice::<Json>(&bytes) else { break };
                if to_test.send(json).is_err() {
                    break;
                }
            }
        });
        let mut browser = Browser {
            child,
            commands: File::from(our_commands),
            messages,
            session: String::new(),
            next_id: 0,
            errors: Vec::new(),
            _profile: profile,
        };
        browser.attach();
        browser
    }

    /// Attaches to the page Chromium opened and enables the domains the
    /// tests use.
    fn attach(&mut self) {
        let targets = self.browser_call("Target.getTargets", json!({}));
        let page = targets["targetInfos"]
            .as_array()
            .and_then(|t| t.iter().find(|t| t["type"] == "page"))
            .unwrap_or_else(|| panic!("no page target: {targets}"))["targetId"]
            .clone();
        let attached =
            self.browser_call("Target.attachToTarget", json!({"targetId": page, "flatten": true}));
        self.session = attached["sessionId"].as_str().expect("a session id").to_string();
        self.call("Page.enable", json!({}));
        self.call("Runtime.enable", json!({}));
    }

    fn browser_call(&mut self, method: &str, params: Json) -> Json {
        self.send(method, params, None)
    }

    /// Sends a command to the page and waits for its answer.
    pub fn call(&mut self, method: &str, params: Json) -> Json {
        let session = self.session.clone();
        self.send(method, params, Some(&session))
    }

    fn send(&mut self, method: &str, params: Json, session: Option<&str>) -> Json {
        self.next_id += 1;
        let id = self.next_id;
        let mut message = json!({"id": id, "method": method, "params": params});
        if let Some(s) = session {
            message["sessionId"] = json!(s);
        }
        let mut bytes = serde_json::to_vec(&message).unwrap();
        bytes.push(0);
        if let Err(e) = self.commands.write_all(&bytes) {
            panic!("chromium stopped listening ({e}){}", self.log_tail());
        }
        loop {
            let message = match self.messages.recv_timeout(ANSWER_BOUND) {
                Ok(m) => m,
                Err(_) => panic!(
                    "no answer from chromium to {method} within {ANSWER_BOUND:?}{}",
                    self.log_tail()
                ),
            };
            if message["id"] == id {
                if let Some(error) = message.get("error") {
                    panic!("{method} failed: {error}");
                }
                return message["result"].clone();
            }
            self.note_event(&message);
        }
    }

    /// Keeps what the page reports as going wrong.
    fn note_event(&mut self, message: &Json) {
        match message["method"].as_str() {
            Some("Runtime.exceptionThrown") => {
                let details = &message["params"]["exceptionDetails"];
                let text = details["exception"]["description"]
                    .as_str()
                    .or(details["text"].as_str())
                    .unwrap_or("?");
                self.errors.push(format!("uncaught exception: {text}"));
            }
            Some("Runtime.consoleAPICalled") if message["params"]["type"] == "error" => {
                self.errors.push(format!("console.error: {}", message["params"]["args"]));
            }
            _ => {}
        }
    }

    fn log_tail(&self) -> String {
        let log =
            std::fs::read_to_string(self._profile.path().join("chromium.log")).unwrap_or_default();
        let tail: Vec<&str> =
            log.lines().rev().take(15).collect::<Vec<_>>().into_iter().rev().collect();
        format!("\nchromium's log ends:\n{}", tail.join("\n"))
    }

    /// Loads `url` and waits until the document has finished loading.
    pub fn navigate(&mut self, url: &str) {
        let answer = self.call("Page.navigate", json!({"url": url}));
        if let Some(error) = answer.get("errorText") {
            panic!("cannot load {url}: {error}");
        }
        self.wait_for("document.readyState === 'complete'", &format!("{url} to load"));
    }

    /// The value of a JavaScript expression (awaited if it is a promise);
    /// an exception in it fails the test.
    pub fn eval(&mut self, expression: &str) -> Json {
        let answer = self.call(
            "Runtime.evaluate",
            json!({"expression": expression, "awaitPromise": true, "returnByValue": true}),
        );
        if let Some(details) = answer.get("exceptionDetails") {
            let text = details["exception"]["description"]
                .as_str()
                .or(details["text"].as_str())
                .unwrap_or("?");
            panic!("evaluating {expression}: {text}");
        }
        answer["result"]["value"].clone()
    }

    /// Waits until `condition` (a JavaScript expression) is true, checking
    /// every 20 ms in the page; fails after a minute, naming `what`.
    pub fn wait_for(&mut self, condition: &str, what: &str) {
        let script = format!(
            "new Promise((resolve) => {{ const t0 = Date.now(); const poll = () => {{ \
               let ok = false; try {{ ok = Boolean({condition}); }} catch (e) {{}} \
               if (ok) resolve(true); else if (Date.now() - t0 > 60000) resolve(false); else setTimeout(poll, 20); }}; poll(); }})"
        );
        if self.eval(&script) != json!(true) {
            let banner = self.eval("document.getElementById('banner') && document.getElementById('banner').textContent");
            let history = self.eval(
                "[...document.querySelectorAll('#history li')].map(li => li.textContent).join(' ')",
            );
            // What the page showed, for whoever reads the failure.
            let name: String =
                what.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '-' }).collect();
            let shot = Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../target/browser")
                .join(format!("failed-{name}.png"));
            self.screenshot(&shot);
            panic!(
                "waited a minute for {what} ({condition}); the banner says {banner}, the history {history}; \
                 page errors: {:?}; screenshot {}",
                self.errors,
                shot.display()
            );
        }
    }

    /// Clicks with the mouse at the centre of the element `selector`
    /// selects, as a user would (the browser decides what is hit).
    pub fn click(&mut self, selector: &str) {
        let centre = self.eval(&format!(
            "(() => {{ const e = document.querySelector({sel}); if (!e) return null; \
               e.scrollIntoView({{block: 'center'}}); const r = e.getBoundingClientRect(); \
               return [r.left + r.width / 2, r.top + r.height / 2]; }})()",
            sel = json!(selector)
        ));
        let (x, y) = match (centre[0].as_f64(), centre[1].as_f64()) {
            (Some(x), Some(y)) => (x, y),
            _ => panic!("nothing to click: no element matches {selector}"),
        };
        // The pointer gets there first, as a hand would bring it: hover
        // effects of leaving the last place happen before the press.
        self.call("Input.dispatchMouseEvent", json!({"type": "mouseMoved", "x": x, "y": y}));
        for kind in ["mousePressed", "mouseReleased"] {
            self.call(
                "Input.dispatchMouseEvent",
                json!({"type": kind, "x": x, "y": y, "button": "left", "clickCount": 1}),
            );
        }
    }

    /// Presses a key such as "ArrowLeft" on the page.
    pub fn key(&mut self, key: &str, code: i64) {
        for kind in ["rawKeyDown", "keyUp"] {
            self.call(
                "Input.dispatchKeyEvent",
                json!({"type": kind, "key": key, "code": key, "windowsVirtualKeyCode": code}),
            );
        }
    }

    /// Saves a PNG of what the window shows at `path`.
    pub fn screenshot(&mut self, path: &Path) {
        let shot = self.call(
            "Page.captureScreenshot",
            json!({"format": "png", "captureBeyondViewport": false}),
        );
        let png = base64_decode(shot["data"].as_str().expect("screenshot data"));
        assert!(png.starts_with(b"\x89PNG"), "the screenshot is not a PNG");
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, png).unwrap();
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Standard base64 (the screenshot's encoding), padding allowed.
fn base64_decode(text: &str) -> Vec<u8> {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = Vec::with_capacity(text.len() * 3 / 4);
    let (mut bits, mut held) = (0u32, 0u32);
    for byte in text.bytes().filter(|&b| b != b'=' && !b.is_ascii_whitespace()) {
        let six = ALPHABET.iter().position(|&a| a == byte).expect("a base64 character") as u32;
        bits = (bits << 6) | six;
        held += 6;
        if held >= 8 {
            held -= 8;
            out.push((bits >> held) as u8);
            bits &= (1 << held) - 1;
        }
    }
    out
}

#[test]
fn base64_decodes_the_rfc_4648_examples() {
    for (plain, coded) in [
        ("", ""),
        ("f", "Zg=="),
        ("fo", "Zm8="),
        ("foo", "Zm9v"),
        ("foob", "Zm9vYg=="),
        ("fooba", "Zm9vYmE="),
    ] {
        assert_eq!(base64_decode(coded), plain.as_bytes());
    }
}
