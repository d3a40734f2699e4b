//! Splits each `always @(*)` block of rust-hdl's Verilog into one block (or one `assign`)
//! per group of statements that must stay together.
//!
//! rust-hdl 0.46 writes all the combinational logic of a module, including the fan-out of
//! `clock` and `reset` to its children, as one `always @(*)`. Verilator then sees every
//! variable of the block depend on every input of it: all logic depends on the clock, so
//! it all lands in Verilator's input region and runs on every `eval` (clock low and clock
//! high) besides after the edge; and stream stages that pass `valid` forward and `ready`
//! back form false combinational loops (UNOPTFLAT).
//!
//! The split works on the block's top-level statements (an assignment, or a whole
//! `if`/`case`) and keeps their text and order; only the grouping changes. Statements stay
//! in one group when they write the same variable, or when one reads a variable that a
//! later statement writes (there the original reads an intermediate value, so order
//! matters). Otherwise a statement reads the final values of the variables it uses,
//! which a separate block provides as well: the groups compute the same function. A
//! group of one unconditional assignment becomes a continuous `assign` (its `reg`
//! declaration becomes a `wire`). A group that reads nothing joins another group, so no
//! `always @(*)` is left without sensitivity. A block whose text does not have the shape
//! rust-hdl writes is left as it was.
//!
//! rust-hdl also writes the connections of a child's ports as one-line blocks,
//! `always @(*) a = b;`. An event-driven simulator runs such a block only when `b`
//! changes, so where `b` settles at time 0 before the block waits (Icarus orders time 0
//! as it likes), `a` stays `x` for good: a register behind it latches the `x` and keeps
//! it. They become `assign`s too, which are evaluated at time 0.

use std::collections::{BTreeMap, HashMap, HashSet};

const KEYWORDS: [&str; 7] = ["if", "else", "begin", "end", "case", "endcase", "default"];

/// The identifiers `s` reads (numbers and based literals such as `32'h1f` skipped).
pub(super) fn idents(s: &str) -> Vec<&str> {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c == b'\'' {
            // Based literal: optional sign flag, base letter, digits.
            i += 1;
            if i < b.len() && matches!(b[i], b's' | b'S') {
                i += 1;
            }
            if i < b.len() && b[i].is_ascii_alphabetic() {
                i += 1;
            }
            while i < b.len() && (b[i].is_ascii_hexdigit() || b"_xXzZ?".contains(&b[i])) {
                i += 1;
            }
        } else if c.is_ascii_digit() {
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
        } else if c.is_ascii_alphabetic() || c == b'_' {
            let start = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_' || b[i] == b'$') {
                i += 1;
            }
            if !KEYWORDS.contains(&&s[start..i]) {
                out.push(&s[start..i]);
            }
        } else {
            i += 1;
        }
    }
    out
}

/// `(lhs, rhs)` of a one-line blocking assignment to a plain identifier.
pub(super) fn split_assign(line: &str) -> Option<(&str, &str)> {
    let (lhs, rest) = line.split_once(" = ")?;
    let rhs = rest.strip_suffix(';')?;
    let ident = lhs
        .bytes()
        .all(|c| c.is_ascii_alphanumeric() || c == b'_' || c == b'$')
        && lhs.bytes().next().is_some_and(|c| !c.is_ascii_digit());
    (ident && !KEYWORDS.contains(&lhs)).then_some((lhs, rhs))
}

pub(super) fn indent(line: &str) -> usize {
    line.len() - line.trim_start().len()
}

/// One top-level statement of a block: its lines and what it writes and reads.
struct Stmt<'a> {
    lines: &'a [&'a str],
    writes: Vec<&'a str>,
    reads: Vec<&'a str>,
}

/// The top-level statements of a block body, or `None` if the body does not have the
/// shape rust-hdl writes (one-line assignments, `if (..) begin`/`end`/`else`, `case`).
fn statements<'a>(body: &'a [&'a str]) -> Option<Vec<Stmt<'a>>> {
    let base = indent(body.iter().find(|l| !l.trim().is_empty())?);
    let mut out = Vec::new();
    let mut i = 0;
    while i < body.len() {
        let first = body[i].trim();
        if first.is_empty() {
            i += 1;
            continue;
        }
        if indent(body[i]) != base
            || !(split_assign(first).is_some()
                || first.starts_with("if (")
                || first.starts_with("case ("))
        {
            return None;
        }
        let start = i;
        i += 1;
        if split_assign(first).is_none() {
            // A compound statement runs on through deeper lines and its own
            // `end`/`endcase`/`else` lines at the base indent.
            while i < body.len() {
                let t = body[i].trim();
                let continues = indent(body[i]) > base
                    || t == "end"
                    || t == "endcase"
                    || t.starts_with("else ")
                    || t.is_empty();
                if !continues {
                    break;
                }
                i += 1;
            }
        }
        let lines = &body[start..i];
        let (mut writes, mut reads) = (Vec::new(), Vec::new());
        for l in lines {
            match split_assign(l.trim()) {
                Some((lhs, rhs)) => {
                    writes.push(lhs);
                    reads.extend(idents(rhs));
                }
                None => reads.extend(idents(l)),
            }
        }
        out.push(Stmt {
            lines,
            writes,
            reads,
        });
    }
    Some(out)
}

fn find(parent: &mut [usize], mut a: usize) -> usize {
    while parent[a] != a {
        parent[a] = parent[parent[a]];
        a = parent[a];
    }
    a
}

fn union(parent: &mut [usize], a: usize, b: usize) {
    let (a, b) = (find(parent, a), find(parent, b));
    parent[a.max(b)] = a.min(b);
}

/// The replacement of one block body, and the variables that became continuous
/// assignments (their declarations must become `wire`). `None`: keep the block.
fn split_body(body: &[&str]) -> Option<(Vec<String>, Vec<String>)> {
    let stmts = statements(body)?;
    let n = stmts.len();
    let mut writers: HashMap<&str, Vec<usize>> = HashMap::new();
    for (k, s) in stmts.iter().enumerate() {
        for w in &s.writes {
            writers.entry(w).or_default().push(k);
        }
    }
    let mut parent: Vec<usize> = (0..n).collect();
    for w in writers.values() {
        for &k in &w[1..] {
            union(&mut parent, w[0], k);
        }
    }
    for (k, s) in stmts.iter().enumerate() {
        for r in &s.reads {
            // A later write means this statement reads an intermediate value.
            if let Some(w) = writers.get(r).filter(|w| w.iter().any(|&j| j > k)) {
                union(&mut parent, k, w[0]);
            }
        }
    }
    // Groups by their first statement (the root is the smallest index of a group).
    let mut groups: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for k in 0..n {
        groups.entry(find(&mut parent, k)).or_default().push(k);
    }
    let single_assign = |g: &[usize]| g.len() == 1 && stmts[g[0]].lines.len() == 1;
    let reads = |g: &[usize]| g.iter().any(|&k| !stmts[k].reads.is_empty());
    // A group that reads nothing would be an `always @(*)` that an event-driven simulator
    // never runs: it joins the first group that reads something.
    if let Some(anchor) = groups.iter().find(|(_, g)| reads(g)).map(|(r, _)| *r) {
        let idle: Vec<usize> = groups
            .iter()
            .filter(|(_, g)| !reads(g) && !single_assign(g))
            .map(|(r, _)| *r)
            .collect();
        for r in idle {
            let g = groups.remove(&r).unwrap_or_default();
            let a = groups.get_mut(&anchor).expect("anchor group");
            a.extend(g);
            a.sort_unstable();
        }
    }
    if groups.len() <= 1 {
        return None;
    }
    let mut out = Vec::new();
    let mut assigned = Vec::new();
    for g in groups.values() {
        if single_assign(g) {
            let line = stmts[g[0]].lines[0].trim();
            out.push(format!("    assign {line}"));
            assigned.extend(stmts[g[0]].writes.iter().map(|w| w.to_string()));
            continue;
        }
        out.push("    always @(*) begin".to_string());
        for &k in g {
            out.extend(stmts[k].lines.iter().map(|l| l.to_string()));
        }
        out.push("    end".to_string());
    }
    Some((out, assigned))
}

/// `reg` → `wire` in the declaration of `name` (`reg  [w:0] name;`, `output reg  name;`).
fn declare_wire(line: &str, wires: &HashSet<String>) -> Option<String> {
    let t = line.trim_start();
    let name = t.strip_suffix(';')?.rsplit(' ').next()?;
    if !wires.contains(name) {
        return None;
    }
    let ind = &line[..line.len() - t.len()];
    if let Some(rest) = t.strip_prefix("reg ") {
        Some(format!("{ind}wire {rest}"))
    } else {
        t.strip_prefix("output reg ")
            .map(|rest| format!("{ind}output wire {rest}"))
    }
}

/// `(lhs, rhs)` of a connection rust-hdl writes as `always @(*) lhs = rhs;` (a child's
/// port joined to a signal).
fn one_line_always(line: &str) -> Option<(&str, &str)> {
    split_assign(line.strip_prefix("    always @(*) ")?)
}

/// How many statements of the module assign each variable.
fn writers<'a>(lines: &[&'a str]) -> HashMap<&'a str, usize> {
    let mut count = HashMap::new();
    for l in lines {
        let t = l.trim_start();
        if let Some((lhs, _)) = split_assign(t.strip_prefix("always @(*) ").unwrap_or(t)) {
            *count.entry(lhs).or_insert(0) += 1;
        }
    }
    count
}

/// Splits the `always @(*)` blocks of one module (its lines, `module` to `endmodule`).
fn split_module(lines: &[&str], out: &mut String) {
    let mut body_out: Vec<String> = Vec::new();
    let mut wires: HashSet<String> = HashSet::new();
    let writers = writers(lines);
    let mut i = 0;
    while i < lines.len() {
        if lines[i] == "    always @(*) begin" {
            if let Some(end) = (i + 1..lines.len()).find(|&k| lines[k] == "    end") {
                match split_body(&lines[i + 1..end]) {
                    Some((parts, assigned)) => {
                        body_out.extend(parts);
                        wires.extend(assigned);
                    }
                    None => body_out.extend(lines[i..=end].iter().map(|l| l.to_string())),
                }
                i = end + 1;
                continue;
            }
        }
        if let Some((lhs, _)) = one_line_always(lines[i]) {
            if writers.get(lhs) == Some(&1) {
                body_out.push(format!(
                    "    assign {}",
                    &lines[i]["    always @(*) ".len()..]
                ));
                wires.insert(lhs.to_string());
                i += 1;
                continue;
            }
        }
        body_out.push(lines[i].to_string());
        i += 1;
    }
    for line in body_out {
        out.push_str(&declare_wire(&line, &wires).unwrap_or(line));
        out.push('\n');
    }
}

/// Splits every module's combinational blocks (see the module documentation). Text
/// outside `always @(*)` blocks is unchanged, except `reg` → `wire` for variables that
/// became continuous assignments.
pub fn split_comb_blocks(verilog: &str) -> String {
    per_module(verilog, split_module)
}

/// Rewrites `verilog` one module at a time: `rewrite` gets a module's lines (`module` to
/// `endmodule`; text after the last one comes as a module too) and appends its text.
pub(super) fn per_module(verilog: &str, mut rewrite: impl FnMut(&[&str], &mut String)) -> String {
    let mut out = String::with_capacity(verilog.len() + verilog.len() / 8);
    let mut module: Vec<&str> = Vec::new();
    for line in verilog.lines() {
        module.push(line);
        if line.starts_with("endmodule") {
            rewrite(&module, &mut out);
            module.clear();
        }
    }
    rewrite(&module, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn module(decls: &str, body: &str) -> String {
        format!(
            "module m(clock,a,b,y);\n{decls}    always @(*) begin\n{body}    end\nendmodule // m\n"
        )
    }

    #[test]
    fn independent_assignments_become_continuous() {
        let v = module(
            "    input wire  clock;\n    input wire  a;\n    output reg  y;\n    reg  c$clock;\n",
            "        c$clock = clock;\n        y = a;\n",
        );
        let out = split_comb_blocks(&v);
        assert!(out.contains("    output wire  y;\n"), "{out}");
        assert!(out.contains("    wire  c$clock;\n"), "{out}");
        assert!(
            out.contains("    assign c$clock = clock;\n    assign y = a;\n"),
            "{out}"
        );
        assert!(!out.contains("always"), "{out}");
    }

    #[test]
    fn one_line_connections_become_continuous_unless_written_elsewhere() {
        let v = "module m(a,y);\n    input wire  a;\n    output reg  y;\n    reg  c$a;\n    reg  z;\n    always @(*) c$a = a;\n    always @(*) y = c$a;\n    always @(*) z = a;\n    always @(*) begin\n        z = 1'b0;\n    end\nendmodule // m\n";
        let out = split_comb_blocks(v);
        assert!(
            out.contains("    output wire  y;\n    wire  c$a;\n"),
            "{out}"
        );
        assert!(
            out.contains("    assign c$a = a;\n    assign y = c$a;\n"),
            "{out}"
        );
        // `z` has a second writer: it stays a `reg` behind its blocks.
        assert!(out.contains("    reg  z;\n"), "{out}");
        assert!(out.contains("    always @(*) z = a;\n"), "{out}");
    }

    #[test]
    fn writes_of_one_variable_and_compound_statements_stay_together() {
        let body = "        s$d = s$q;\n        ready = 1'b0;\n        if (a) begin\n            s$d = 32'h1;\n            x = b;\n        end\n        else begin\n            x = 1'b0;\n        end\n        ready = b;\n        if (reset) begin\n            s$d = 32'h0;\n        end\n";
        let out = split_comb_blocks(&module("", body));
        let blocks: Vec<&str> = out.split("    always @(*) begin\n").skip(1).collect();
        assert_eq!(blocks.len(), 2, "{out}");
        // s$d's writes (and x, written in the same `if`) in order, in one block.
        assert!(blocks[0].starts_with("        s$d = s$q;\n        if (a) begin\n            s$d = 32'h1;\n            x = b;\n        end\n        else begin\n            x = 1'b0;\n        end\n        if (reset) begin\n"), "{out}");
        assert!(
            blocks[1].starts_with("        ready = 1'b0;\n        ready = b;\n    end\n"),
            "{out}"
        );
    }

    #[test]
    fn a_read_before_a_later_write_keeps_the_order() {
        // `y` reads `t` before its second write: it must see the first value.
        let body = "        t = a;\n        y = t;\n        t = b;\n        z = t;\n";
        let out = split_comb_blocks(&module("", body));
        assert!(
            out.contains(
                "    always @(*) begin\n        t = a;\n        y = t;\n        t = b;\n    end\n"
            ),
            "{out}"
        );
        assert!(out.contains("    assign z = t;\n"), "{out}");
    }

    #[test]
    fn constant_groups_join_a_group_that_reads() {
        let body = "        y = a;\n        k = 1'b0;\n        k = 1'b1;\n";
        let out = split_comb_blocks(&module("", body));
        assert!(out.contains("    always @(*) begin\n        y = a;\n        k = 1'b0;\n        k = 1'b1;\n    end\n"), "{out}");
    }

    #[test]
    fn case_items_and_literals_parse() {
        assert_eq!(
            idents("x[(32'h1d)+:(3)] == S$Idle && 4'b10x0 != y$q"),
            ["x", "S$Idle", "y$q"]
        );
        let body = "        case (s$q)\n            S$A:\n                begin\n                    y = a;\n                end\n        endcase\n        z = b;\n";
        let out = split_comb_blocks(&module("", body));
        assert!(
            out.contains("    always @(*) begin\n        case (s$q)\n"),
            "{out}"
        );
        assert!(
            out.contains("        endcase\n    end\n    assign z = b;\n"),
            "{out}"
        );
    }

    #[test]
    fn other_shapes_are_left_alone() {
        for body in [
            "        y = a;\n        for (i = 0; i < 2; i = i + 1) begin\n        end\n",
            "        y = a;\n",
        ] {
            let v = module("", body);
            assert_eq!(split_comb_blocks(&v), v);
        }
    }
}
