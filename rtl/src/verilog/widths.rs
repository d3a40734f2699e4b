//! Finds arithmetic whose width rust-hdl and Verilog disagree on, in exported Verilog.
//!
//! rust-hdl computes `a + b` and `a - b` in the operands' width and wraps. Verilog sizes
//! an expression by its context: a comparison widens both operands to the wider one, and
//! rust-hdl writes its literals with 32 bits, so `(ip - rp) != 8` on 4-bit counters is a
//! 32-bit subtraction in Verilog and never wraps; `bit_cast` is written as a mask
//! (`(x) & 16'hffff`) that widens an arithmetic `x` the same way. The simulated design
//! and the synthesized one then differ once the arithmetic wraps. The design computes
//! such values into a signal of their width first; this check finds the places that do
//! not: an operand of a comparison, or a masked expression, containing `+` or `-` on a
//! signal (outside bit selects, whose indices Verilog sizes on their own).
//!
//! The same widening turns `~` on a signal into ones above the signal's width: the left
//! operand of `<<` is sized by its context, so `(x & ~(1 << (j)) | ((~b) << (j)))`,
//! rust-hdl's `replace_bit(j, !b)`, sets every bit from j up when `b` is low. The check
//! finds a `~` on a signal in the left operand of a shift, too.

/// One place of disagreement: the line number (1-based) and the statement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WidthHazard {
    /// Line in the Verilog text.
    pub line: usize,
    /// The statement.
    pub text: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tok<'a> {
    Ident(&'a str),
    Literal,
    Op(&'a str),
    Open(u8),
    Close(u8),
}

fn tokens(s: &str) -> Vec<Tok<'_>> {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_whitespace() {
            i += 1;
        } else if c.is_ascii_digit() || c == b'\'' {
            // Numbers and based literals (32'h1f, 4'b1010).
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'\'' || b[i] == b'_') {
                i += 1;
            }
            out.push(Tok::Literal);
        } else if c.is_ascii_alphabetic() || c == b'_' {
            let start = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_' || b[i] == b'$') {
                i += 1;
            }
            out.push(Tok::Ident(&s[start..i]));
        } else if b"([{".contains(&c) {
            out.push(Tok::Open(c));
            i += 1;
        } else if b")]}".contains(&c) {
            out.push(Tok::Close(c));
            i += 1;
        } else {
            let two = s.get(i..i + 2).unwrap_or("");
            let op = if ["==", "!=", "<=", ">=", "&&", "||", "<<", ">>"].contains(&two) {
                two
            } else {
                &s[i..i + 1]
            };
            i += op.len();
            out.push(Tok::Op(op));
        }
    }
    out
}

const COMPARISONS: [&str; 6] = ["==", "!=", "<=", ">=", "<", ">"];
/// Operators that end an operand of a comparison or of `&` (lower precedence).
const BOUNDARY: [&str; 7] = ["&&", "||", "?", ":", ",", "|", "^"];

/// True if `toks` (one operand) has `+` or `-` on a signal outside bit selects.
fn has_arith_on_signal(toks: &[Tok<'_>]) -> bool {
    let mut bracket = 0usize;
    let mut arith = false;
    let mut signal = false;
    for (k, t) in toks.iter().enumerate() {
        match t {
            Tok::Open(b'[') => bracket += 1,
            Tok::Close(b']') => bracket = bracket.saturating_sub(1),
            _ if bracket > 0 => {}
            Tok::Ident(_) => signal = true,
            // Binary only: something that ends an operand comes before it.
            Tok::Op("+" | "-") => {
                arith |=
                    k > 0 && matches!(toks[k - 1], Tok::Ident(_) | Tok::Literal | Tok::Close(_))
            }
            _ => {}
        }
    }
    arith && signal
}

/// True if `toks` (one operand) has a `~` on a signal outside bit selects, and is not a
/// logical or comparison result (whose operands Verilog sizes on their own).
fn has_not_on_signal(toks: &[Tok<'_>]) -> bool {
    // Parentheses around the whole operand do not size it.
    let mut t = toks;
    while t.first() == Some(&Tok::Open(b'(')) && right_operand(t, 0, &[]).len() + 2 == t.len() {
        t = &t[1..t.len() - 1];
    }
    let (mut depth, mut bracket) = (0usize, 0usize);
    let mut not = false;
    let mut signal = false;
    for tok in t {
        match tok {
            Tok::Open(b'[') => bracket += 1,
            Tok::Close(b']') => bracket = bracket.saturating_sub(1),
            _ if bracket > 0 => {}
            Tok::Open(_) => depth += 1,
            Tok::Close(_) => depth = depth.saturating_sub(1),
            Tok::Op("&&" | "||" | "!" | "==" | "!=" | "<" | "<=" | ">" | ">=") if depth == 0 => {
                return false
            }
            Tok::Ident(_) => signal = true,
            Tok::Op("~") => not = true,
            _ => {}
        }
    }
    not && signal
}

/// The operand left of `toks[at]`: back to an unmatched `(` or a boundary operator.
fn left_operand<'t, 'a>(toks: &'t [Tok<'a>], at: usize, stop: &[&str]) -> &'t [Tok<'a>] {
    let mut depth = 0usize;
    let mut k = at;
    while k > 0 {
        match toks[k - 1] {
            Tok::Close(_) => depth += 1,
            Tok::Open(_) if depth == 0 => break,
            Tok::Open(_) => depth -= 1,
            Tok::Op(o) if depth == 0 && stop.contains(&o) => break,
            _ => {}
        }
        k -= 1;
    }
    &toks[k..at]
}

/// The operand right of `toks[at]`: on to an unmatched `)` or a boundary operator.
fn right_operand<'t, 'a>(toks: &'t [Tok<'a>], at: usize, stop: &[&str]) -> &'t [Tok<'a>] {
    let mut depth = 0usize;
    let mut k = at + 1;
    while k < toks.len() {
        match toks[k] {
            Tok::Open(_) => depth += 1,
            Tok::Close(_) if depth == 0 => break,
            Tok::Close(_) => depth -= 1,
            Tok::Op(o) if depth == 0 && stop.contains(&o) => break,
            _ => {}
        }
        k += 1;
    }
    &toks[at + 1..k]
}

/// True if the expression `s` widens arithmetic on a signal.
fn hazardous(s: &str) -> bool {
    let toks = tokens(s);
    let mut cmp_stop: Vec<&str> = BOUNDARY.to_vec();
    cmp_stop.extend(COMPARISONS);
    cmp_stop.push("&");
    for (k, t) in toks.iter().enumerate() {
        let Tok::Op(op) = *t else { continue };
        if op == "<<" && has_not_on_signal(left_operand(&toks, k, &cmp_stop)) {
            return true;
        }
        let operands = if COMPARISONS.contains(&op) {
            [
                left_operand(&toks, k, &cmp_stop),
                right_operand(&toks, k, &cmp_stop),
            ]
        } else if op == "&" && matches!(toks.get(k + 1), Some(Tok::Literal)) {
            // A mask: `bit_cast` of what stands left of it.
            [left_operand(&toks, k, &cmp_stop), &toks[k + 1..k + 2]]
        } else {
            continue;
        };
        if operands.iter().any(|o| has_arith_on_signal(o)) {
            return true;
        }
    }
    false
}

/// The expression parts of a statement line: an `if` condition, or the right-hand side
/// of a blocking or continuous assignment (never a nonblocking `<=`).
fn expression(line: &str) -> Option<&str> {
    let t = line.trim();
    // `if (`, `else if (`, `end else if (`.
    if let Some(at) = t.find("if (") {
        if at == 0 || t[..at].ends_with(' ') {
            return Some(&t[at + 2..]);
        }
    }
    let t = t.strip_prefix("assign ").unwrap_or(t);
    let eq = t.find('=')?;
    let before = &t[..eq];
    let after = &t[eq + 1..];
    let is_plain = !before.ends_with(['<', '>', '!', '='])
        && !after.starts_with('=')
        && before
            .trim()
            .bytes()
            .all(|c| c.is_ascii_alphanumeric() || b"_$[]:".contains(&c));
    is_plain.then_some(after)
}

/// Every statement of `verilog` that widens arithmetic on a signal.
pub fn width_hazards(verilog: &str) -> Vec<WidthHazard> {
    verilog
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim_start().starts_with("//"))
        .filter(|(_, l)| expression(l).is_some_and(hazardous))
        .map(|(i, l)| WidthHazard {
            line: i + 1,
            text: l.trim().to_string(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_arithmetic_and_inversions_widened_by_their_context() {
        for bad in [
            "if ((ip$0$q - rp$0$q) != 32'h8) begin",
            "assign last = a_tidx$q + 32'h4 >= a_total$q;",
            "if (take && (t$0 < e_plen + 32'h3)) begin",
            "x = ((a - b) & 16'hffff) << 32'h2;",
            "else if (count == limit - 32'h1) begin",
            "m = (m & ~(1 << (2)) | ((~eop$2) << (2)));",
            "m = (m & ~(1 << (2)) | (((~a) | b) << (2)));",
        ] {
            assert!(hazardous(expression(bad).unwrap()), "{bad}");
        }
        for good in [
            "if (outstanding$0 != 32'h8) begin",
            "assign sum = a + b;",
            "x = (a & 12'hfff) << 32'h2;",
            "q <= d + 32'h1;",
            "if (rd_addr == 32'h44a + 32'h10 * 0) begin",
            "if (mem[idx + 32'h1] == 8'h0) begin",
            "y = -a;",
            "if (a == b) begin",
            "m = (m & ~(1 << (2)) | ((eop$2) << (2)));",
            "m = (m & ~(1 << (2)) | ((a && ~b) << (2)));",
            "m = (m & ~(1 << (2)) | (((~a && b) || c) << (2)));",
        ] {
            assert!(!expression(good).is_some_and(hazardous), "{good}");
        }
    }

    #[test]
    fn the_exported_core_has_none() {
        let v = crate::verilog::export::core_verilog();
        let found = width_hazards(&v);
        assert!(found.is_empty(), "{found:#?}");
    }
}
