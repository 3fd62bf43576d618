//! Hand-written JSON output: the few shapes the commands print do not
//! justify a serialisation dependency.

/// `text` as a JSON string literal.
pub fn string(text: &str) -> String {
    let mut s = String::with_capacity(text.len() + 2);
    s.push('"');
    for c in text.chars() {
        match c {
            '"' => s.push_str("\\\""),
            '\\' => s.push_str("\\\\"),
            '\n' => s.push_str("\\n"),
            c if (c as u32) < 0x20 => s.push_str(&format!("\\u{:04x}", c as u32)),
            c => s.push(c),
        }
    }
    s.push('"');
    s
}

#[cfg(test)]
mod tests {
    #[test]
    fn strings_are_escaped() {
        assert_eq!(super::string("9-8"), "\"9-8\"");
        assert_eq!(super::string("a\"b\\c\nd\u{1}"), "\"a\\\"b\\\\c\\nd\\u0001\"");
    }
}
