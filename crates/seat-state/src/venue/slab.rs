//! The holds a show keeps in memory, by position. Positions are what seats,
//! areas and holders point at; a position freed by an evicted hold is used
//! again, so memory follows the holds kept, not every hold ever made.

use std::ops::Index;

use crate::hold::Hold;

/// A hold kept in memory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Kept {
    pub hold: Hold,
    /// A confirmed hold recalled from storage after its eviction: its sale
    /// is already among the show's retired sales, so it is not linked
    /// again (that would count it twice).
    pub sale_retired: bool,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct HoldSlab {
    slots: Vec<Option<Kept>>,
    free: Vec<usize>,
    len: usize,
}

impl HoldSlab {
    /// Where the next [`Self::insert`] puts its hold.
    pub fn next_position(&self) -> usize {
        self.free.last().copied().unwrap_or(self.slots.len())
    }

    pub fn insert(&mut self, kept: Kept) -> usize {
        self.len += 1;
        match self.free.pop() {
            Some(at) => {
                self.slots[at] = Some(kept);
                at
            }
            None => {
                self.slots.push(Some(kept));
                self.slots.len() - 1
            }
        }
    }

    pub fn remove(&mut self, at: usize) -> Option<Kept> {
        let kept = self.slots.get_mut(at)?.take()?;
        self.len -= 1;
        self.free.push(at);
        Some(kept)
    }

    pub fn kept(&self, at: usize) -> &Kept {
        self.slots[at].as_ref().expect("a position in use")
    }

    pub fn get_mut(&mut self, at: usize) -> &mut Hold {
        &mut self.slots[at].as_mut().expect("a position in use").hold
    }

    /// Every kept hold, in no particular order.
    pub fn iter(&self) -> impl Iterator<Item = &Kept> {
        self.slots.iter().flatten()
    }

    pub fn len(&self) -> usize {
        self.len
    }
}

/// Positions in use always hold a hold: everything that points at a
/// position lets go of it before the hold is removed.
impl Index<usize> for HoldSlab {
    type Output = Hold;

    fn index(&self, at: usize) -> &Hold {
        &self.kept(at).hold
    }
}
