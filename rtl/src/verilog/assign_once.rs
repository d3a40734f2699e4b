//! Makes every `always @(*)` block assign each variable it drives once per run.
//!
//! rust-hdl gives an output a default and then, under conditions, its value, in one
//! combinational block. An event-driven simulator (Icarus, ModelSim/Questa) wakes every
//! block that reads a variable at each of its changes, the intermediate ones included.
//! Two blocks that read each other's outputs then re-trigger each other forever inside
//! one time step: each run of one writes a default and a value, and each of those
//! changes wakes the other (seen between a port's egress and its TX merge). Verilator
//! evaluates blocks in order and never shows it.
//!
//! The rewrite: a variable written on more than one line of a block is computed in a
//! block-private variable (its name plus [`SUFFIX`], declared beside it) and copied to
//! the real variable once, at the end of the block. Every mention of the variable in the
//! block becomes the private one: reads after a write see the same intermediate values
//! as before, and a read before any write sees the value of the last run, which is the
//! variable's own value (nothing else writes either). Other blocks see one change at
//! most per run, and only a real one.

use super::split::{idents, indent, per_module, split_assign};
use std::collections::{BTreeSet, HashMap, HashSet};

/// Appended to a variable's name for its block-private copy.
pub const SUFFIX: &str = "$once";

/// `line` with every whole identifier `from` replaced by `to` (based literals skipped).
fn rename(line: &str, from: &str, to: &str) -> String {
    let b = line.as_bytes();
    let mut out = String::with_capacity(line.len() + to.len());
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        let start = i;
        if c == b'\'' {
            i += 1;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b"_?".contains(&b[i])) {
                i += 1;
            }
        } else if c.is_ascii_digit() {
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
        } else if c.is_ascii_alphabetic() || c == b'_' {
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_' || b[i] == b'$') {
                i += 1;
            }
            if &line[start..i] == from {
                out.push_str(to);
                continue;
            }
        } else {
            i += 1;
        }
        out.push_str(&line[start..i]);
    }
    out
}

/// Each identifier's mentions in a module's lines outside declarations.
fn module_uses<'a>(lines: &[&'a str]) -> HashMap<&'a str, usize> {
    let is_decl = |l: &str| {
        let t = l.trim_start();
        ["reg ", "wire ", "output ", "input "]
            .iter()
            .any(|k| t.starts_with(k))
    };
    let mut uses: HashMap<&str, usize> = HashMap::new();
    for l in lines.iter().filter(|l| !is_decl(l)) {
        for v in idents(l) {
            *uses.entry(v).or_default() += 1;
        }
    }
    uses
}

/// The variables a block writes on more than one line that something outside the block
/// reads (`uses`: see [`module_uses`]), sorted. A variable only the block itself reads
/// wakes no other block, and private copies are read by their block alone.
fn glitching<'a>(body: &[&'a str], uses: &HashMap<&str, usize>) -> Vec<&'a str> {
    let mut writes: HashMap<&str, usize> = HashMap::new();
    let mut inside: HashMap<&str, usize> = HashMap::new();
    for l in body {
        if let Some((lhs, _)) = split_assign(l.trim()) {
            *writes.entry(lhs).or_default() += 1;
        }
        for v in idents(l) {
            *inside.entry(v).or_default() += 1;
        }
    }
    let read_outside = |v: &str| uses.get(v).copied().unwrap_or(0) > inside[v];
    let mut vars: Vec<&str> = writes
        .into_iter()
        .filter(|(v, n)| *n > 1 && !v.ends_with(SUFFIX) && read_outside(v))
        .map(|(v, _)| v)
        .collect();
    vars.sort_unstable();
    vars
}

/// The rewritten body of one block, and the variables that got a private copy.
fn rewrite_block(body: &[&str], uses: &HashMap<&str, usize>) -> (Vec<String>, Vec<String>) {
    let once = glitching(body, uses);
    let mut out: Vec<String> = body
        .iter()
        .map(|l| {
            once.iter()
                .fold(l.to_string(), |l, v| rename(&l, v, &format!("{v}{SUFFIX}")))
        })
        .collect();
    if let Some(base) = body
        .iter()
        .find(|l| !l.trim().is_empty())
        .map(|l| indent(l))
    {
        let pad = " ".repeat(base);
        out.extend(once.iter().map(|v| format!("{pad}{v} = {v}{SUFFIX};")));
    }
    (out, once.iter().map(|v| v.to_string()).collect())
}

/// The declaration of `v`'s private copy, made from `v`'s declaration line.
fn private_decl(line: &str, v: &str) -> Option<String> {
    let t = line.trim_start();
    let body = t.strip_suffix(';')?;
    let name = body.rsplit(' ').next()?;
    if name != v {
        return None;
    }
    let ind = &line[..line.len() - t.len()];
    let kind = body.strip_prefix("output ").unwrap_or(body);
    let rest = kind.strip_prefix("reg ")?;
    let rest = &rest[..rest.len() - name.len()];
    Some(format!("{ind}reg {rest}{v}{SUFFIX};"))
}

/// The `always @(*)` blocks of a module as `(begin line, end line)`.
fn comb_blocks(lines: &[&str]) -> Vec<(usize, usize)> {
    let mut blocks = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        if lines[i] == "    always @(*) begin" {
            if let Some(end) = (i + 1..lines.len()).find(|&k| lines[k] == "    end") {
                blocks.push((i, end));
                i = end;
            }
        }
        i += 1;
    }
    blocks
}

/// Rewrites the blocks of one module (its lines, `module` to `endmodule`).
fn rewrite_module(lines: &[&str], out: &mut String) {
    let uses = module_uses(lines);
    let mut body: Vec<String> = Vec::new();
    let mut private: BTreeSet<String> = BTreeSet::new();
    let mut next = 0;
    for (begin, end) in comb_blocks(lines) {
        body.extend(lines[next..=begin].iter().map(|l| l.to_string()));
        let (new, vars) = rewrite_block(&lines[begin + 1..end], &uses);
        body.extend(new);
        private.extend(vars);
        next = end;
    }
    body.extend(lines[next..].iter().map(|l| l.to_string()));
    let declared: HashSet<&str> = lines
        .iter()
        .filter_map(|l| l.trim().strip_suffix(';')?.rsplit(' ').next())
        .collect();
    for line in body {
        out.push_str(&line);
        out.push('\n');
        if private.is_empty() {
            continue;
        }
        for v in idents(&line).into_iter().filter(|v| private.contains(*v)) {
            if let Some(decl) = private_decl(&line, v) {
                debug_assert!(!declared.contains(format!("{v}{SUFFIX}").as_str()));
                out.push_str(&decl);
                out.push('\n');
            }
        }
    }
}

/// Rewrites every module's `always @(*)` blocks so that each assigns a variable once per
/// run (see the module documentation). Everything else is unchanged.
pub fn assign_once(verilog: &str) -> String {
    per_module(verilog, rewrite_module)
}

/// `module: variable` for each variable that an `always @(*)` block of `verilog` writes
/// on more than one line while another block reads it (none after [`assign_once`]): the
/// shape that makes event-driven simulators loop.
pub fn multiply_assigned(verilog: &str) -> Vec<String> {
    let mut found = Vec::new();
    let lines: Vec<&str> = verilog.lines().collect();
    for module in lines.split_inclusive(|l| l.starts_with("endmodule")) {
        let name = module
            .iter()
            .find_map(|l| l.strip_prefix("module "))
            .map_or("", |r| r.split('(').next().unwrap_or(r));
        let uses = module_uses(module);
        for (begin, end) in comb_blocks(module) {
            for v in glitching(&module[begin + 1..end], &uses) {
                found.push(format!("{name}: {v}"));
            }
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn module(decls: &str, body: &str) -> String {
        format!("module m(a,b,y);\n{decls}    always @(*) begin\n{body}    end\nendmodule // m\n")
    }

    #[test]
    fn a_default_and_a_value_become_one_write() {
        let v = module(
            "    input wire  a;\n    input wire  [3:0] b;\n    output reg  [3:0] y;\n    reg  z;\n",
            "        y = 4'h0;\n        if (a) begin\n            y = b;\n        end\n        z = y[0];\n",
        );
        let out = assign_once(&v);
        assert!(
            out.contains("    output reg  [3:0] y;\n    reg  [3:0] y$once;\n"),
            "{out}"
        );
        assert!(out.contains("        y$once = 4'h0;\n        if (a) begin\n            y$once = b;\n        end\n        z = y$once[0];\n        y = y$once;\n    end\n"), "{out}");
        assert!(multiply_assigned(&out).is_empty(), "{out}");
        assert_eq!(multiply_assigned(&v), ["m: y"]);
    }

    #[test]
    fn every_mention_in_the_block_is_the_private_copy() {
        let v = module(
            "    reg  t;\n    reg  u;\n    assign y = t;\n",
            "        u = t;\n        if (a) begin\n            t = b;\n        end\n        else begin\n            t = a;\n        end\n",
        );
        let out = assign_once(&v);
        assert!(out.contains("        u = t$once;\n        if (a) begin\n            t$once = b;\n        end\n        else begin\n            t$once = a;\n        end\n        t = t$once;\n    end\n"), "{out}");
    }

    #[test]
    fn single_writes_block_locals_and_literals_are_left_alone() {
        let v = module("    reg  y;\n", "        y = a & 8'hab;\n");
        assert_eq!(assign_once(&v), v);
        // `t` is written twice but read only inside its block: no other block wakes.
        let v = module(
            "    reg  t;\n",
            "        t = a;\n        t = t & b;\n        y = t;\n",
        );
        assert_eq!(assign_once(&v), v);
        assert_eq!(rename("ab + 8'hab + ab$q", "ab", "x"), "x + 8'hab + ab$q");
    }
}
