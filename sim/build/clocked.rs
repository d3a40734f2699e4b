//! Derives, from the Verilated model's own `eval`, an eval that skips the input region.
//!
//! Verilator 5's `_eval` first runs the "input combinational" region (all logic that reads
//! a top-level input, whether or not any input changed), then the clocked regions
//! (triggers, `act`, `nba`). The simulator evaluates each chip twice a cycle: with the
//! clock low after setting the inputs, then with the clock high. When no input but the
//! clock changed in between, the input region's results still hold (no logic of it reads
//! the clock: every block that did only fanned the clock out to children, and the
//! Verilog split turns those into plain assignments), so the clock-high eval only needs
//! the clocked regions. This module copies the generated `_eval` without its input loop
//! as `p2_eval_clocked`. If the generated code does not have the expected shape (another
//! Verilator version), there is no copy and the shim falls back to the full `eval`.

/// The C++ definition of `static void p2_eval_clocked(<root>* vlSelf)`, or `None`.
pub fn eval_clocked(class: &str, sources: &[String]) -> Option<String> {
    let root = format!("{class}___024root");
    let head = format!("void {root}___eval({root}* vlSelf) {{");
    let text = sources.iter().find(|s| s.contains(&head))?;
    let lines: Vec<&str> = text.lines().collect();
    let start = lines.iter().position(|l| *l == head)?;
    let end = start + lines[start..].iter().position(|l| *l == "}")?;
    let body = &lines[start + 1..end];
    // The input region: from resetting its iteration count to the end of its loop.
    let from = body
        .iter()
        .position(|l| l.trim() == "vlSelf->__VicoIterCount = 0U;")?;
    let open = from + 2;
    if body.get(open)?.trim() != "while (__VicoContinue) {" {
        return None;
    }
    let indent = &body[open][..body[open].len() - body[open].trim_start().len()];
    let close = open
        + body[open..]
            .iter()
            .position(|l| *l == format!("{indent}}}"))?;
    let kept: Vec<&str> = body[..from]
        .iter()
        .chain(&body[close + 1..])
        .filter(|l| !l.contains("__VicoContinue;"))
        .copied()
        .collect();
    if kept
        .iter()
        .any(|l| l.contains("__Vico") || l.contains("_ico"))
    {
        return None;
    }
    // The clocked part must still be there.
    let joined = kept.join("\n");
    if !joined.contains("___eval_triggers__act(vlSelf)") || !joined.contains("___eval_nba(vlSelf)")
    {
        return None;
    }
    Some(format!(
        "// Copied by peach2-sim's build script from {root}___eval, without its input region.\n\
         static void p2_eval_clocked({root}* vlSelf) {{\n{joined}\n}}\n"
    ))
}
