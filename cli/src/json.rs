//! JSON out through serde_json, in the layout the commands have always
//! printed: `{"key": value, "other": [1, 2]}` on one line (a space after
//! every `:` and `,`, which serde_json's compact output lacks), or, for
//! the outermost levels of a reply, one item a line indented by two
//! spaces (serde_json's pretty output, which breaks every level).
//! Each reply is a small struct deriving `Serialize`; [`Layout`] says
//! how many of its levels break lines. `query --json` and `stats --json`
//! are served by `morris serve` as they are printed, and scripts and
//! tests read them, so the bytes stay those of the hand-written writers
//! this replaced.

use serde::Serialize;
use serde_json::ser::{CharEscape, Formatter};
use serde_json::value::RawValue;
use std::io;

/// A serde_json formatter: the outermost `broken` levels of arrays and
/// objects put each item on its own line (indented two spaces a level,
/// an empty one stays `[]`), deeper ones stay on one line with `, `
/// between items and `: ` after keys.
struct Layout {
    broken: usize,
    /// How many arrays and objects are open.
    depth: usize,
    /// Whether the innermost open one has had an item (serde_json's
    /// pretty formatter keeps the same flag).
    has_value: bool,
}

impl Layout {
    fn breaks(&self) -> bool {
        self.depth <= self.broken
    }

    fn open<W: ?Sized + io::Write>(&mut self, w: &mut W, bracket: &[u8]) -> io::Result<()> {
        self.depth += 1;
        self.has_value = false;
        w.write_all(bracket)
    }

    fn close<W: ?Sized + io::Write>(&mut self, w: &mut W, bracket: &[u8]) -> io::Result<()> {
        if self.breaks() && self.has_value {
            self.newline(w, self.depth - 1)?;
        }
        self.depth -= 1;
        w.write_all(bracket)
    }

    /// Before an item: `, ` or a line break, as the level asks.
    fn item<W: ?Sized + io::Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        if self.breaks() {
            if !first {
                w.write_all(b",")?;
            }
            self.newline(w, self.depth)
        } else if first {
            Ok(())
        } else {
            w.write_all(b", ")
        }
    }

    fn newline<W: ?Sized + io::Write>(&self, w: &mut W, level: usize) -> io::Result<()> {
        w.write_all(b"\n")?;
        for _ in 0..level {
            w.write_all(b"  ")?;
        }
        Ok(())
    }
}

impl Formatter for Layout {
    fn begin_array<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.open(w, b"[")
    }

    fn end_array<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.close(w, b"]")
    }

    fn begin_array_value<W: ?Sized + io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> io::Result<()> {
        self.item(w, first)
    }

    fn end_array_value<W: ?Sized + io::Write>(&mut self, _: &mut W) -> io::Result<()> {
        self.has_value = true;
        Ok(())
    }

    fn begin_object<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.open(w, b"{")
    }

    fn end_object<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.close(w, b"}")
    }

    fn begin_object_key<W: ?Sized + io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> io::Result<()> {
        self.item(w, first)
    }

    fn begin_object_value<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        w.write_all(b": ")
    }

    fn end_object_value<W: ?Sized + io::Write>(&mut self, _: &mut W) -> io::Result<()> {
        self.has_value = true;
        Ok(())
    }

    /// Control characters as `\u00XX`, except the line feed (`\n`): the
    /// escapes the hand-written writer used (serde_json writes `\t`,
    /// `\r`, `\b` and `\f` for four of them; both read the same).
    fn write_char_escape<W: ?Sized + io::Write>(
        &mut self,
        w: &mut W,
        escape: CharEscape,
    ) -> io::Result<()> {
        let code = match escape {
            CharEscape::Quote => return w.write_all(b"\\\""),
            CharEscape::ReverseSolidus => return w.write_all(b"\\\\"),
            CharEscape::Solidus => return w.write_all(b"\\/"),
            CharEscape::LineFeed => return w.write_all(b"\\n"),
            CharEscape::Backspace => 0x08,
            CharEscape::FormFeed => 0x0c,
            CharEscape::CarriageReturn => 0x0d,
            CharEscape::Tab => 0x09,
            CharEscape::AsciiControl(byte) => byte,
        };
        write!(w, "\\u{code:04x}")
    }
}

/// `value` as JSON whose outermost `broken` levels break lines (0: all
/// on one line), without a final newline.
pub fn to_string<T: Serialize + ?Sized>(value: &T, broken: usize) -> String {
    let mut bytes = Vec::with_capacity(128);
    let layout = Layout { broken, depth: 0, has_value: false };
    let mut serializer = serde_json::Serializer::with_formatter(&mut bytes, layout);
    // Writing to a `Vec` cannot fail, nor can the replies' types (string
    // keys, no maps); a failure would be a bug here, not bad input.
    value.serialize(&mut serializer).expect("a reply serialises to JSON");
    String::from_utf8(bytes).expect("serde_json writes UTF-8")
}

/// `value` on one line, appended to `out` (the lines of `morris probe`).
pub fn push<T: Serialize + ?Sized>(out: &mut String, value: &T) {
    out.push_str(&to_string(value, 0));
}

/// `value` as JSON with a final newline: a reply's body.
pub fn body<T: Serialize + ?Sized>(value: &T, broken: usize) -> Vec<u8> {
    let mut text = to_string(value, broken);
    text.push('\n');
    text.into_bytes()
}

/// `value` as JSON with a final newline, written to `out`.
pub fn write<T: Serialize + ?Sized>(
    out: &mut impl io::Write,
    value: &T,
    broken: usize,
) -> io::Result<()> {
    out.write_all(&body(value, broken))
}

/// A value kept on one line even where its level breaks lines (the
/// `line` of `query --json` beside its `moves`, one a line).
pub struct OneLine<T>(pub T);

impl<T: Serialize> Serialize for OneLine<T> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        raw(to_string(&self.0, 0), serializer)
    }
}

/// A number with four decimals, `0.5000`, as `stats --json` has always
/// written `bits_per_state` (serde_json would write `0.5`).
pub struct Decimals4(pub f64);

impl Serialize for Decimals4 {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        if !self.0.is_finite() {
            // JSON has no NaN or infinity (bits per state never is one).
            return serializer.serialize_none();
        }
        raw(format!("{:.4}", self.0), serializer)
    }
}

/// Text that is JSON already, written as it is.
fn raw<S: serde::Serializer>(json: String, serializer: S) -> Result<S::Ok, S::Error> {
    RawValue::from_string(json).map_err(serde::ser::Error::custom)?.serialize(serializer)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Serialize)]
    struct Outer {
        name: &'static str,
        rows: Vec<Inner>,
        empty: Vec<u8>,
        line: OneLine<Vec<&'static str>>,
        bits: Decimals4,
        none: Option<u8>,
    }

    #[derive(Serialize)]
    struct Inner {
        a: u8,
        b: [&'static str; 2],
    }

    #[test]
    fn strings_are_escaped_as_they_always_were() {
        assert_eq!(to_string("9-8", 0), "\"9-8\"");
        assert_eq!(to_string("a\"b\\c\nd\u{1}", 0), "\"a\\\"b\\\\c\\nd\\u0001\"");
        assert_eq!(
            to_string("\t\r\u{8}\u{c}\u{1f}/é", 0),
            "\"\\u0009\\u000d\\u0008\\u000c\\u001f/é\""
        );
    }

    #[test]
    fn outer_levels_break_lines_inner_ones_do_not() {
        let rows = vec![Inner { a: 1, b: ["x", "y"] }, Inner { a: 2, b: ["z", "w"] }];
        let value = Outer {
            name: "n",
            rows,
            empty: vec![],
            line: OneLine(vec!["p", "q"]),
            bits: Decimals4(0.5),
            none: None,
        };
        assert_eq!(
            to_string(&value, 2),
            "{\n  \"name\": \"n\",\n  \"rows\": [\n    {\"a\": 1, \"b\": [\"x\", \"y\"]},\n    \
             {\"a\": 2, \"b\": [\"z\", \"w\"]}\n  ],\n  \"empty\": [],\n  \"line\": [\"p\", \"q\"],\n  \
             \"bits\": 0.5000,\n  \"none\": null\n}"
        );
        assert_eq!(
            to_string(&value, 0),
            "{\"name\": \"n\", \"rows\": [{\"a\": 1, \"b\": [\"x\", \"y\"]}, {\"a\": 2, \"b\": [\"z\", \"w\"]}], \
             \"empty\": [], \"line\": [\"p\", \"q\"], \"bits\": 0.5000, \"none\": null}"
        );
        assert_eq!(to_string(&[[1, 2], [3, 4]], 1), "[\n  [1, 2],\n  [3, 4]\n]");
        assert_eq!(to_string(&Vec::<u8>::new(), 1), "[]");
    }
}
