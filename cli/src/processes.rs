//! `mpirun -np K peach2 sim ...`: one cluster over the K processes of an MPI job.

use crate::CliError;
use peach2_sim::partition::Transport;
use std::rc::Rc;

/// `mpirun` started this process as one of several (read from its environment, without
/// initialising MPI).
pub fn in_job() -> bool {
    ["OMPI_COMM_WORLD_SIZE", "PMI_SIZE"]
        .iter()
        .filter_map(|v| std::env::var(v).ok())
        .any(|n| n.trim().parse::<u32>().is_ok_and(|n| n > 1))
}

/// The MPI job this process belongs to, when `mpirun` started more than one process.
#[cfg(feature = "mpi")]
pub fn job() -> Result<Option<Rc<dyn Transport>>, CliError> {
    use peach2_mpi::World;
    if !World::launched() {
        return Ok(None);
    }
    let w = World::init().map_err(|e| CliError::Failure(e.to_string()))?;
    Ok(if w.size() > 1 { Some(Rc::new(w)) } else { None })
}

/// The MPI job this process belongs to: this build has no MPI, so a job of more than
/// one process is an error.
#[cfg(not(feature = "mpi"))]
pub fn job() -> Result<Option<Rc<dyn Transport>>, CliError> {
    match std::env::var("OMPI_COMM_WORLD_SIZE") {
        Ok(n) if n != "1" => Err(CliError::Input(
            "started by mpirun, but this peach2 was built without MPI (the `mpi` feature)".into(),
        )),
        _ => Ok(None),
    }
}

/// Ends the whole MPI job after `e` in this process (the others would wait for it);
/// call it while the job's transport is still alive.
#[cfg(feature = "mpi")]
pub fn abort_job(e: &CliError) -> ! {
    eprintln!("{e}");
    peach2_mpi::abort(1)
}

/// Ends this process after `e` (no MPI in this build, so no job).
#[cfg(not(feature = "mpi"))]
pub fn abort_job(e: &CliError) -> ! {
    eprintln!("{e}");
    std::process::exit(1)
}
