//! `peach2 tlp`: decode TLP bytes to JSON, encode JSON to bytes, print beats.
//!
//! All TLP knowledge is in `pcie_model`; this module only reads arguments and
//! prints. Hex input may contain spaces and `0x` prefixes and may be split over
//! several arguments; `-` reads the input from stdin.

use std::io::{self, Read, Write};

use clap::{Args, Subcommand};
use pcie_model::beats::{bytes_to_beats, to_beats};
use pcie_model::tlp::hex::{parse_hex, to_hex};
use pcie_model::tlp::Tlp;

use crate::CliError;

/// Arguments of `peach2 tlp`.
#[derive(Args)]
pub struct TlpArgs {
    #[command(subcommand)]
    command: TlpCommand,
}

#[derive(Subcommand)]
enum TlpCommand {
    /// Decode a TLP from hex; print it as one JSON object on one line.
    ///
    /// Example: peach2 tlp decode 00000001 0000000f 00001000
    Decode {
        /// TLP bytes in wire order as hex (spaces and 0x allowed; `-` reads stdin).
        #[arg(required = true, value_name = "HEX")]
        hex: Vec<String>,
    },
    /// Encode a TLP from its JSON object; print its bytes as lowercase hex.
    ///
    /// The JSON is what `decode` prints; fmt, type, length, td, tc, attr and ep
    /// may be left out.
    Encode {
        /// The TLP as a JSON object (`-` reads stdin).
        #[arg(value_name = "JSON")]
        json: String,
    },
    /// Print the 128-bit beats that carry a TLP over PEACH2's port interface.
    ///
    /// One line per beat: data=<32 hex digits, data[127:0] MSB first> sop=<0|1> eop=<0|1> empty=<0..3>
    Beats {
        /// Cut the bytes into beats without checking that they are a valid TLP
        /// (they must still be whole DWs).
        #[arg(long)]
        raw: bool,
        /// TLP bytes in wire order as hex (spaces and 0x allowed; `-` reads stdin).
        #[arg(required = true, value_name = "HEX")]
        hex: Vec<String>,
    },
}

/// Runs `peach2 tlp`.
pub fn run(args: TlpArgs) -> Result<(), CliError> {
    match args.command {
        TlpCommand::Decode { hex } => {
            let tlp = decode(&read_bytes(&hex)?)?;
            emit(&[tlp.to_json()])
        }
        TlpCommand::Encode { json } => {
            let json = if json == "-" { read_stdin()? } else { json };
            let tlp = Tlp::from_json(&json)
                .map_err(|e| CliError::Input(format!("cannot encode TLP: {e}")))?;
            emit(&[to_hex(&tlp.to_bytes())])
        }
        TlpCommand::Beats { raw, hex } => {
            let bytes = read_bytes(&hex)?;
            let beats = if raw {
                bytes_to_beats(&bytes).map_err(|e| CliError::Input(e.to_string()))?
            } else {
                to_beats(&decode(&bytes)?)
            };
            let lines: Vec<String> = beats.iter().map(ToString::to_string).collect();
            emit(&lines)
        }
    }
}

fn decode(bytes: &[u8]) -> Result<Tlp, CliError> {
    Tlp::from_bytes(bytes).map_err(|e| CliError::Input(format!("invalid TLP: {e}")))
}

/// The bytes given as hex arguments (joined), or on stdin for `-`.
fn read_bytes(args: &[String]) -> Result<Vec<u8>, CliError> {
    let text = if args == ["-"] {
        read_stdin()?
    } else {
        args.join(" ")
    };
    parse_hex(&text).map_err(|e| CliError::Input(format!("invalid hex: {e}")))
}

fn read_stdin() -> Result<String, CliError> {
    let mut text = String::new();
    io::stdin()
        .read_to_string(&mut text)
        .map_err(|e| CliError::Input(format!("cannot read stdin: {e}")))?;
    Ok(text)
}

/// Prints lines to stdout; a closed pipe (`| head`) is not an error.
fn emit(lines: &[String]) -> Result<(), CliError> {
    let mut out = io::stdout().lock();
    for line in lines {
        if let Err(e) = writeln!(out, "{line}") {
            if e.kind() == io::ErrorKind::BrokenPipe {
                return Ok(());
            }
            return Err(CliError::Failure(format!("cannot write to stdout: {e}")));
        }
    }
    Ok(())
}
