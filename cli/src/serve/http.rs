//! Replies with a status and a body, the parameters of a query string,
//! and text from a client made safe to print.

use crate::json;
use std::collections::HashMap;

/// An answer to a request, before it goes on the wire.
#[derive(Clone, Debug)]
pub struct Reply {
    pub status: u16,
    pub content_type: &'static str,
    pub body: Vec<u8>,
}

pub const JSON: &str = "application/json";

/// The body of every error reply.
#[derive(serde::Serialize)]
struct ErrorBody<'a> {
    error: &'a str,
}

impl Reply {
    /// 200 with a JSON body.
    pub fn json(body: Vec<u8>) -> Reply {
        Reply { status: 200, content_type: JSON, body }
    }

    /// `{"error": message}` with `status`; the message on one line, as
    /// the CLI prints it after `morris: error: `.
    pub fn error(status: u16, message: &str) -> Reply {
        let body = json::body(&ErrorBody { error: &message.replace('\n', " ") }, 0);
        Reply { status, content_type: JSON, body }
    }

    /// 400: the request is wrong.
    pub fn bad_request(message: &str) -> Reply {
        Reply::error(400, message)
    }
}

/// `text` as it may reach a terminal: control characters (escape
/// sequences, carriage returns, bidirectional overrides are all among them
/// or among Unicode's format characters) written as `\u{..}`, and no more
/// than `max` characters of it.
pub fn printable(text: &str, max: usize) -> String {
    let mut out = String::new();
    for (i, c) in text.chars().enumerate() {
        if i == max {
            out.push_str("...");
            break;
        }
        let format = matches!(c, '\u{200b}'..='\u{200f}' | '\u{2028}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{feff}');
        if c.is_control() || format || c == '\\' {
            out.extend(c.escape_unicode());
        } else {
            out.push(c);
        }
    }
    out
}

/// The path of a request target and its decoded query parameters.
#[derive(Debug, PartialEq, Eq)]
pub struct Target {
    pub path: String,
    params: HashMap<String, String>,
}

impl Target {
    /// Splits `url` (`/path?k=v&...`) and decodes the parameters. The path
    /// stays as sent: routes are compared with it whole, so `/api/../x`
    /// or `/%2e%2e/` simply match no route.
    pub fn parse(url: &str) -> Result<Target, String> {
        let (path, query) = url.split_once('?').unwrap_or((url, ""));
        let mut params = HashMap::new();
        for pair in query.split('&').filter(|p| !p.is_empty()) {
            let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
            let key = decode(key)?;
            let value = decode(value)?;
            if params.insert(key.clone(), value).is_some() {
                return Err(format!("parameter '{key}' is given more than once"));
            }
        }
        Ok(Target { path: path.to_string(), params })
    }

    /// The parameter `name`, if given.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.params.get(name).map(String::as_str)
    }

    /// The parameter `name`, which must be given.
    pub fn require(&self, name: &str) -> Result<&str, String> {
        self.get(name).ok_or_else(|| format!("missing parameter '{name}'"))
    }

    /// An error naming a parameter the route does not take: a misspelt
    /// one would otherwise be ignored without a word.
    pub fn only(&self, known: &[&str]) -> Result<(), String> {
        let mut unknown: Vec<&String> =
            self.params.keys().filter(|k| !known.contains(&k.as_str())).collect();
        unknown.sort();
        match unknown.first() {
            None => Ok(()),
            Some(k) => {
                Err(format!("unknown parameter '{k}' (this route takes: {})", known.join(", ")))
            }
        }
    }
}

/// A query-string component with `%XX` escapes and `+` for space decoded;
/// it must be UTF-8.
fn decode(text: &str) -> Result<String, String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' => {
                let hex = bytes.get(i + 1..i + 3).and_then(|h| std::str::from_utf8(h).ok());
                let byte = hex.and_then(|h| u8::from_str_radix(h, 16).ok());
                match byte {
                    // from_str_radix takes a sign; a hex pair has none.
                    Some(b) if !hex.unwrap_or("").starts_with('+') => out.push(b),
                    _ => return Err(format!("bad percent escape in '{text}'")),
                }
                i += 2;
            }
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8(out).map_err(|_| format!("'{text}' is not UTF-8 once decoded"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parameters_are_decoded() {
        let t =
            Target::parse("/api/query?variant=six&position=W....%2F..B+w%204%205&moves=").unwrap();
        assert_eq!(t.path, "/api/query");
        assert_eq!(t.get("variant"), Some("six"));
        assert_eq!(t.get("position"), Some("W..../..B w 4 5"));
        assert_eq!(t.get("moves"), Some(""));
        assert_eq!(t.get("nothing"), None);
        assert!(t.only(&["variant", "position", "moves"]).is_ok());
        assert_eq!(
            t.only(&["variant"]).unwrap_err(),
            "unknown parameter 'moves' (this route takes: variant)"
        );
        assert_eq!(t.require("x").unwrap_err(), "missing parameter 'x'");
    }

    #[test]
    fn bad_escapes_and_repeats_are_refused() {
        for url in ["/a?x=%", "/a?x=%4", "/a?x=%zz", "/a?x=%+1", "/a?x=%ff", "/a?x=1&x=2"] {
            assert!(Target::parse(url).is_err(), "{url}");
        }
        assert_eq!(Target::parse("/a?x=%C3%A9").unwrap().get("x"), Some("é"));
    }

    #[test]
    fn control_characters_never_reach_the_terminal() {
        let p = printable("/a\x1b[2J\r\n\u{7f}\u{202e}\\é", 100);
        assert!(p.chars().all(|c| !c.is_control()), "{p}");
        assert_eq!(p, "/a\\u{1b}[2J\\u{d}\\u{a}\\u{7f}\\u{202e}\\u{5c}é");
        assert_eq!(printable("abcdef", 3), "abc...");
    }

    #[test]
    fn errors_are_one_json_line() {
        let r = Reply::error(400, "a \"b\"\nc");
        assert_eq!(r.status, 400);
        assert_eq!(String::from_utf8(r.body).unwrap(), "{\"error\": \"a \\\"b\\\" c\"}\n");
    }
}
