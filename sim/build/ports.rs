//! Reads the port list of the exported top module: names, directions, widths, in order.

/// Direction of a top-level port.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dir {
    /// Driven by the testbench.
    In,
    /// Driven by the design.
    Out,
}

/// One port of the top module.
#[derive(Clone, Debug)]
pub struct Port {
    /// Verilog name.
    pub name: String,
    /// Direction.
    pub dir: Dir,
    /// Width in bits.
    pub width: u32,
}

/// The ports of `module <top>(...)` in `verilog`, in the order of its header.
pub fn parse(verilog: &str, top: &str) -> Result<Vec<Port>, String> {
    let head = format!("module {top}(");
    let start = verilog
        .find(&head)
        .ok_or_else(|| format!("no `{head}` in the exported Verilog"))?;
    let body = &verilog[start + head.len()..];
    let close = body.find(");").ok_or("module header does not end")?;
    let names: Vec<&str> = body[..close].split(',').map(str::trim).collect();
    let end = body.find("endmodule").ok_or("module does not end")?;
    let mut decls = std::collections::HashMap::new();
    for line in body[close..end].lines() {
        let words: Vec<&str> = line
            .trim()
            .trim_end_matches(';')
            .split_whitespace()
            .collect();
        let dir = match words.first() {
            Some(&"input") => Dir::In,
            Some(&"output") => Dir::Out,
            _ => continue,
        };
        let name = *words.last().ok_or("empty declaration")?;
        let width = match words.iter().find(|w| w.starts_with('[')) {
            Some(range) => {
                let inner = range.trim_start_matches('[').trim_end_matches(']');
                let (msb, lsb) = inner
                    .split_once(':')
                    .ok_or_else(|| format!("bad range {range} of {name}"))?;
                let msb: u32 = msb.parse().map_err(|_| format!("bad msb of {name}"))?;
                let lsb: u32 = lsb.parse().map_err(|_| format!("bad lsb of {name}"))?;
                msb - lsb + 1
            }
            None => 1,
        };
        decls.insert(name.to_string(), (dir, width));
    }
    names
        .iter()
        .map(|n| {
            let (dir, width) = decls
                .get(*n)
                .ok_or_else(|| format!("port {n} has no input/output declaration"))?;
            if *width > 128 {
                return Err(format!(
                    "port {n} is {width} bits; the shim handles up to 128"
                ));
            }
            Ok(Port {
                name: n.to_string(),
                dir: *dir,
                width: *width,
            })
        })
        .collect()
}
