//! `--profile NAME`, as `peach2 sim`, `peach2 bench` and `peach2 run` take it: the model
//! parameters of the simulated system (`peach2_testbench::profile`), `ha-pacs` by
//! default so every command simulates the same cluster.

use crate::CliError;
use peach2_testbench::profile::Profile;

/// The profile every command uses unless told otherwise.
pub const DEFAULT_PROFILE: &str = "ha-pacs";

/// The profile called `name`, or an input error listing the names.
pub fn profile(name: &str) -> Result<Profile, CliError> {
    Profile::by_name(name).ok_or_else(|| {
        CliError::Input(format!(
            "unknown profile {name:?} ({})",
            Profile::NAMES.join(", ")
        ))
    })
}
