//! The older descriptor API's tables (`tcaSetDMADescInt_*` and `tcaSetDMAChainInt`, as
//! omni-compiler called them in 2014-15; `tcaCreateDMADesc`, `tcaSetDMADesc_*`,
//! `tcaSetDMAChain` and `tcaDestroyDMADesc`, as PEACH2-Benchmarks did in 2018): numbered
//! entries of one copy each, chained with `tcaDMAContinue` and set on a channel the way
//! [`crate::tca_calls`] sets a `tcaDesc` of the same copies.

use crate::abi::*;
use crate::server::{Answer, RankCtx};
use crate::tca_calls::{push, set_on_channel, status, Desc, Transfer};
use crate::wire::Writer;
use peach2_driver::TcaError;
use std::collections::HashMap;

/// A rank's tables.
#[derive(Default)]
pub(crate) struct Tables {
    /// The internal table, made at its first use.
    internal: Option<Table>,
    /// The `tcaCreateDMADesc` tables by id.
    by_id: HashMap<i32, Table>,
    /// The last id handed out.
    last_id: i32,
}

/// A descriptor table of the older API: the internal one (`tcaSetDMADescInt_*`) or one
/// from `tcaCreateDMADesc`. Each set entry is a one-copy [`Desc`], checked as
/// `tcaDescSetMemcpy` checks its copy; a chain joins entries into one list.
struct Table {
    entries: Vec<Option<Desc>>,
}

impl Table {
    fn new(len: usize) -> Table {
        Table {
            entries: vec![None; len],
        }
    }

    /// Stores `entry` at `slot`, replacing what was there.
    fn put(&mut self, slot: i32, entry: Desc) -> Result<(), TcaError> {
        let len = self.entries.len();
        let e = usize::try_from(slot)
            .ok()
            .and_then(|s| self.entries.get_mut(s))
            .ok_or_else(|| TcaError::Invalid(format!("slot {slot} is outside 0..{len}")))?;
        *e = Some(entry);
        Ok(())
    }

    /// The chain from entry `first`: it and the entries after it, up to and including
    /// the first without `tcaDMAContinue`.
    fn chain(&self, first: i32) -> Result<Desc, TcaError> {
        let start = usize::try_from(first)
            .ok()
            .filter(|&s| s < self.entries.len())
            .ok_or_else(|| {
                TcaError::Invalid(format!("slot {first} is outside 0..{}", self.entries.len()))
            })?;
        let mut chain = Desc::default();
        for (at, e) in self.entries.iter().enumerate().skip(start) {
            let e = e.as_ref().ok_or_else(|| {
                TcaError::Invalid(format!(
                    "entry {at} of the chain from slot {first} was never set"
                ))
            })?;
            chain.extend(e);
            if e.flags & TCA_FLAG_CONTINUE == 0 {
                return Ok(chain);
            }
        }
        Err(TcaError::Invalid(format!(
            "the chain from slot {first} runs past the last entry (every entry has tcaDMAContinue)"
        )))
    }
}

/// Which table of the older API a call names.
#[derive(Clone, Copy)]
pub(crate) enum TableId {
    /// The process's internal table (`tcaSetDMADescInt_*`).
    Internal,
    /// A `tcaCreateDMADesc` table by its id.
    Host(i32),
}

fn table(ctx: &mut RankCtx, id: TableId) -> Result<&mut Table, TcaError> {
    match id {
        TableId::Internal => Ok(ctx
            .tca
            .tables
            .internal
            .get_or_insert_with(|| Table::new(TCA_DESC_INT_SLOTS as usize))),
        TableId::Host(t) => {
            ctx.tca.tables.by_id.get_mut(&t).ok_or_else(|| {
                TcaError::Invalid(format!("{t} is not a live tcaCreateDMADesc table"))
            })
        }
    }
}

pub(crate) fn create_table(ctx: &mut RankCtx, entries: i32) -> Answer {
    let len = usize::try_from(entries)
        .ok()
        .filter(|&n| (1..=TCA_DESC_TABLE_MAX_ENTRIES as usize).contains(&n));
    let Some(len) = len else {
        return Answer::status(TCA_ERROR_INVALID_VALUE);
    };
    // Ids are positive and never reused, so a destroyed table's id stays invalid.
    let tables = &mut ctx.tca.tables;
    let Some(id) = tables.last_id.checked_add(1) else {
        return Answer::status(TCA_ERROR_OUT_OF_MEMORY);
    };
    tables.last_id = id;
    tables.by_id.insert(id, Table::new(len));
    let mut w = Writer::new();
    w.i32(id);
    Answer::with(TCA_SUCCESS, w)
}

/// `tcaSetDMADesc[Int]_Memcpy[2D]`: copy `a`, checked as `tcaDescSetMemcpy` checks it,
/// becomes entry `slot` of the table.
pub(crate) fn set_entry(ctx: &mut RankCtx, id: TableId, slot: i32, a: &Transfer) -> Answer {
    let r = (|| {
        let mut entry = Desc::default();
        push(&mut entry, a)?;
        table(ctx, id)?.put(slot, entry)
    })();
    status(r)
}

/// `tcaSetDMAChain[Int]`: the chain from entry `first` of the table, set on channel
/// `ch` as `tcaDescSet` sets a list of those copies.
pub(crate) fn set_table_chain(ctx: &mut RankCtx, id: TableId, ch: i32, first: i32) -> Answer {
    let r = (|| {
        let mut chain = table(ctx, id)?.chain(first)?;
        if let TableId::Internal = id {
            // The internal form's descriptors are in the chip whatever their flags say.
            chain.flags |= TCA_FLAG_USE_INTERNAL;
        }
        set_on_channel(ctx, ch, &chain)
    })();
    status(r)
}

/// `tcaDestroyDMADesc`: a chain set from the table stays on its channel.
pub(crate) fn destroy_table(ctx: &mut RankCtx, id: i32) -> Answer {
    let found = ctx.tca.tables.by_id.remove(&id).is_some();
    Answer::status(if found {
        TCA_SUCCESS
    } else {
        TCA_ERROR_INVALID_VALUE
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tca_calls::result_of;

    /// An entry with `flags` (the chain rule reads only those).
    fn entry(flags: i64) -> Desc {
        Desc {
            flags,
            ..Desc::default()
        }
    }

    #[test]
    fn a_chain_runs_to_the_first_entry_without_continue() {
        let mut t = Table::new(8);
        t.put(2, entry(TCA_FLAG_CONTINUE | TCA_FLAG_NOTIFY))
            .unwrap();
        t.put(3, entry(TCA_FLAG_USE_INTERNAL)).unwrap();
        t.put(4, entry(TCA_FLAG_NOTIFY_SELF)).unwrap();
        let c = t.chain(2).unwrap();
        assert_eq!(
            c.flags,
            TCA_FLAG_CONTINUE | TCA_FLAG_NOTIFY | TCA_FLAG_USE_INTERNAL,
            "entries 2 and 3, not 4"
        );
        assert_eq!(t.chain(4).unwrap().flags, TCA_FLAG_NOTIFY_SELF);
        // A set replaces the entry: 3 now continues into 4.
        t.put(3, entry(TCA_FLAG_CONTINUE)).unwrap();
        assert_eq!(
            t.chain(2).unwrap().flags,
            TCA_FLAG_CONTINUE | TCA_FLAG_NOTIFY | TCA_FLAG_NOTIFY_SELF
        );
    }

    #[test]
    fn unset_entries_slots_outside_and_endless_chains_are_invalid() {
        let invalid = |t: &Table, first: i32| {
            t.chain(first).err().map(|e| result_of(&e)) == Some(TCA_ERROR_INVALID_VALUE)
        };
        let mut t = Table::new(4);
        for bad in [-1, 4] {
            assert!(t.put(bad, entry(0)).is_err(), "slot {bad}");
            assert!(invalid(&t, bad), "slot {bad}");
        }
        assert!(invalid(&t, 0), "never set");
        t.put(0, entry(TCA_FLAG_CONTINUE)).unwrap();
        assert!(invalid(&t, 0), "entry 1 never set");
        for s in 1..4 {
            t.put(s, entry(TCA_FLAG_CONTINUE)).unwrap();
        }
        assert!(invalid(&t, 0), "runs past the last entry");
    }
}
