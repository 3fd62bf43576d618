//! Which `Host` a request may name, and which requests `/api` takes.
//!
//! A page on another site can make a browser send requests to a server on
//! this machine; with DNS rebinding (the other site's name made to point
//! at 127.0.0.1) it can even read the answers, as the same origin. The
//! `Host` header gives such requests away: it carries the other site's
//! name. So a request must name the bound address, a name of this machine
//! (`localhost`; for a wildcard bind such as 0.0.0.0, the machine's host
//! name and addresses), or a name allowed with `--allow-host`. And `/api`
//! refuses what a browser marks as cross-site (`Sec-Fetch-Site`) or sends
//! with an `Origin` other than the host asked.

use std::collections::HashSet;
use std::net::{IpAddr, SocketAddr};

/// The host names and addresses a request may name, lower case, without
/// port or brackets.
#[derive(Debug)]
pub struct Hosts {
    names: HashSet<String>,
}

impl Hosts {
    /// The names for a server bound to `bound`, and `allowed`.
    pub fn new(bound: SocketAddr, allowed: &[String]) -> Hosts {
        let mut names: HashSet<String> =
            ["localhost", "127.0.0.1", "::1"].iter().map(|s| s.to_string()).collect();
        names.insert(bound.ip().to_string());
        if bound.ip().is_unspecified() {
            names.extend(own_names());
        }
        names.extend(allowed.iter().map(|n| bare(n)));
        Hosts { names }
    }

    /// Whether the value of a `Host` header is one of ours.
    pub fn allows(&self, host: &str) -> bool {
        self.names.contains(&bare(host))
    }
}

/// `host` without its port, brackets or trailing dot, in lower case.
fn bare(host: &str) -> String {
    let host = host.trim();
    let name = if let Some(rest) = host.strip_prefix('[') {
        rest.split(']').next().unwrap_or("")
    } else {
        match host.rsplit_once(':') {
            Some((name, port)) if port.bytes().all(|b| b.is_ascii_digit()) => name,
            _ => host,
        }
    };
    name.trim_end_matches('.').to_ascii_lowercase()
}

/// Whether a request to `/api` comes from a page of this server (or from
/// no page at all, as `curl` or a script): refused when the browser says
/// the request is cross-site or same-site (another port is another
/// server), or when its `Origin` is not `http://` and the host asked.
pub fn same_origin(host: Option<&str>, fetch_site: Option<&str>, origin: Option<&str>) -> bool {
    if let Some(site) = fetch_site {
        if !matches!(site.trim().to_ascii_lowercase().as_str(), "same-origin" | "none") {
            return false;
        }
    }
    match origin {
        None => true,
        Some(origin) => host
            .is_some_and(|h| origin.trim().eq_ignore_ascii_case(&format!("http://{}", h.trim()))),
    }
}

/// This machine's host name and the addresses of its interfaces.
fn own_names() -> Vec<String> {
    let mut names = Vec::new();
    let mut buf = [0u8; 256];
    // SAFETY: the buffer is valid for its length; gethostname writes a
    // NUL-terminated name into it (truncated if longer).
    if unsafe { libc::gethostname(buf.as_mut_ptr().cast(), buf.len()) } == 0 {
        let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
        if let Ok(name) = std::str::from_utf8(&buf[..end]) {
            names.push(name.to_ascii_lowercase());
        }
    }
    let mut list: *mut libc::ifaddrs = std::ptr::null_mut();
    // SAFETY: getifaddrs fills `list` with a linked list that we walk and
    // then free once.
    unsafe {
        if libc::getifaddrs(&mut list) == 0 {
            let mut at = list;
            while !at.is_null() {
                let addr = (*at).ifa_addr;
                if !addr.is_null() {
                    match i32::from((*addr).sa_family) {
                        libc::AF_INET => {
                            let a = &*(addr as *const libc::sockaddr_in);
                            let ip = IpAddr::from(u32::from_be(a.sin_addr.s_addr).to_be_bytes());
                            names.push(ip.to_string());
                        }
                        libc::AF_INET6 => {
                            let a = &*(addr as *const libc::sockaddr_in6);
                            names.push(IpAddr::from(a.sin6_addr.s6_addr).to_string());
                        }
                        _ => {}
                    }
                }
                at = (*at).ifa_next;
            }
            libc::freeifaddrs(list);
        }
    }
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_are_compared_without_port_or_case() {
        let hosts = Hosts::new("127.0.0.1:8080".parse().unwrap(), &["Board.Example".into()]);
        for ok in ["127.0.0.1:8080", "localhost", "LOCALHOST:1", "[::1]:8080", "board.example."] {
            assert!(hosts.allows(ok), "{ok}");
        }
        for bad in ["evil.example", "127.0.0.1.evil.example", "", "localhost.evil:80", "[::2]"] {
            assert!(!hosts.allows(bad), "{bad}");
        }
        let wild = Hosts::new("0.0.0.0:8080".parse().unwrap(), &[]);
        assert!(wild.allows("127.0.0.1:8080"));
        assert!(!wild.allows("evil.example"));
    }

    #[test]
    fn cross_site_requests_are_refused() {
        let h = Some("127.0.0.1:8080");
        assert!(same_origin(h, None, None));
        assert!(same_origin(h, Some("same-origin"), Some("http://127.0.0.1:8080")));
        assert!(same_origin(h, Some("none"), None));
        assert!(!same_origin(h, Some("cross-site"), None));
        assert!(!same_origin(h, Some("same-site"), None));
        assert!(!same_origin(h, None, Some("http://evil.example")));
        assert!(!same_origin(h, None, Some("null")));
        assert!(!same_origin(None, None, Some("http://127.0.0.1:8080")));
    }
}
