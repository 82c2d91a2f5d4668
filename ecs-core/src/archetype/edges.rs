//! [`Edges`]: an archetype's cache of where each bundle leads.
//!
//! ```text
//!  bundle ids: 0 = Position, 1 = Velocity, 2 = (Velocity, Stunned)
//!
//!  Archetype 1 {Position}
//!  ├─ insert_bundle[0] ─▶ archetype 1, [Existing]       (has it already: no move)
//!  ├─ insert_bundle[1] ─▶ archetype 2, [Added]
//!  ├─ insert_bundle[2] ─▶ archetype 3, [Added, Added]
//!  ├─ remove_bundle[1] ─▶ archetype 1                   (nothing of it present)
//!  └─ take_bundle[1]   ─▶ None                          (cannot take what is absent)
//! ```
//!
//! Each map is a [`SparseArray`] indexed by [`BundleId`], so a cached
//! transition costs a bounds check and an `Option` test. The entries are
//! written by `BundleInfo` the first time a bundle meets an archetype and
//! never change afterwards: archetypes are never removed, and an
//! archetype's component set is fixed.

use super::ArchetypeId;
use crate::{bundle::BundleId, component::RequiredComponent, storage::SparseArray};

/// Whether a bundle's component is new to the entity or replaces a value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ComponentStatus {
    /// The entity did not have the component: the value is added.
    Added,
    /// The entity had the component: the value replaces the old one.
    Existing,
}

/// Where inserting a bundle leads, and the status of each of the bundle's
/// components (in bundle order).
#[derive(Debug, Clone)]
pub struct ArchetypeAfterBundleInsert {
    /// The archetype after the insert (maybe the same one).
    pub archetype_id: ArchetypeId,
    /// Added or Existing, per bundle component.
    pub bundle_status: Box<[ComponentStatus]>,
    /// Whether every bundle component is Added (none Existing): then an
    /// insert writes every value as new without reading `bundle_status`.
    pub all_added: bool,
    /// Components required by the bundle's components that neither the
    /// bundle nor the archetype has: made from their defaults and added.
    pub required_components: Box<[RequiredComponent]>,
    /// Where the source table's columns land in the target's table (see
    /// [`TableMoves`]); empty when the table stays the same.
    pub(crate) table_moves: TableMoves,
}

/// For each column of an edge's source table, in [`Table::columns`]
/// order, the position of the same component's column in the target
/// archetype's table, or [`NO_COLUMN`] if the target lacks it (a remove or
/// take drops or hands out that value). Empty when both archetypes share
/// one table (no table move).
///
/// Built once with the edge: a table's columns never change, so the
/// positions hold for the world's life, and a move reaches each
/// destination column by position instead of looking it up by id.
///
/// [`Table::columns`]: crate::storage::Table::columns
/// [`NO_COLUMN`]: crate::storage::NO_COLUMN
pub(crate) type TableMoves = Box<[u32]>;

/// Where removing (or taking) a bundle leads, and how the table row moves.
#[derive(Debug, Clone)]
pub(crate) struct ArchetypeAfterBundleRemove {
    pub(crate) archetype_id: ArchetypeId,
    pub(crate) table_moves: TableMoves,
}

/// Which cached edge a move follows (and so how its table row moves).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum EdgeKind {
    /// An insert: the target table has every column of the source.
    Insert(BundleId),
    /// A remove: the values of the columns the target lacks are dropped.
    Remove(BundleId),
    /// A take: the caller already moved the values of the columns the
    /// target lacks out of the table.
    Take(BundleId),
}

/// An archetype's cache of bundle transitions, keyed by dense `BundleId`:
/// lookups are one bounds check, no hashing.
///
/// Three maps, each filled on the first insert, remove or take of a bundle
/// from this archetype: insert ([`ArchetypeAfterBundleInsert`]: the target
/// and each component's [`ComponentStatus`]), remove (the target after
/// removing whatever part of the bundle is present) and take (the target
/// after moving the whole bundle out, `None` if part of it is missing). See
/// the [module docs](crate::archetype#the-archetype-graph-and-its-cached-edges)
/// for the graph they form.
#[derive(Debug, Default)]
pub struct Edges {
    insert_bundle: SparseArray<BundleId, ArchetypeAfterBundleInsert>,
    remove_bundle: SparseArray<BundleId, ArchetypeAfterBundleRemove>,
    take_bundle: SparseArray<BundleId, Option<ArchetypeAfterBundleRemove>>,
}

impl Edges {
    /// The cached result of inserting a bundle.
    #[inline]
    pub fn get_archetype_after_bundle_insert(
        &self,
        bundle: BundleId,
    ) -> Option<&ArchetypeAfterBundleInsert> {
        self.insert_bundle.get(bundle)
    }

    #[inline]
    pub(crate) fn cache_archetype_after_bundle_insert(
        &mut self,
        bundle: BundleId,
        after: ArchetypeAfterBundleInsert,
    ) {
        self.insert_bundle.insert(bundle, after);
    }

    /// The cached archetype after removing a bundle (whatever of it is
    /// present).
    #[inline]
    pub fn get_archetype_after_bundle_remove(&self, bundle: BundleId) -> Option<ArchetypeId> {
        self.remove_bundle
            .get(bundle)
            .map(|after| after.archetype_id)
    }

    #[inline]
    pub(crate) fn cache_archetype_after_bundle_remove(
        &mut self,
        bundle: BundleId,
        after: ArchetypeAfterBundleRemove,
    ) {
        self.remove_bundle.insert(bundle, after);
    }

    /// The cached archetype after taking a bundle: `Some(None)` when the
    /// archetype lacks part of the bundle, so nothing can be taken.
    #[inline]
    pub fn get_archetype_after_bundle_take(&self, bundle: BundleId) -> Option<Option<ArchetypeId>> {
        self.take_bundle
            .get(bundle)
            .map(|after| after.as_ref().map(|after| after.archetype_id))
    }

    #[inline]
    pub(crate) fn cache_archetype_after_bundle_take(
        &mut self,
        bundle: BundleId,
        after: Option<ArchetypeAfterBundleRemove>,
    ) {
        self.take_bundle.insert(bundle, after);
    }

    /// The column positions of a cached edge that leads somewhere (see
    /// [`TableMoves`]).
    ///
    /// # Panics
    /// If the edge is not cached or is a take that leads nowhere: callers
    /// follow an edge they just computed.
    #[inline]
    pub(crate) fn table_moves(&self, edge: EdgeKind) -> &[u32] {
        let moves = match edge {
            EdgeKind::Insert(bundle) => self.insert_bundle.get(bundle).map(|a| &a.table_moves),
            EdgeKind::Remove(bundle) => self.remove_bundle.get(bundle).map(|a| &a.table_moves),
            EdgeKind::Take(bundle) => self
                .take_bundle
                .get(bundle)
                .and_then(Option::as_ref)
                .map(|a| &a.table_moves),
        };
        moves.expect("a move follows a cached edge")
    }

    /// The target of a cached edge (`None` if it is not cached or leads
    /// nowhere).
    pub(crate) fn target(&self, edge: EdgeKind) -> Option<ArchetypeId> {
        match edge {
            EdgeKind::Insert(bundle) => self.insert_bundle.get(bundle).map(|a| a.archetype_id),
            EdgeKind::Remove(bundle) => self.get_archetype_after_bundle_remove(bundle),
            EdgeKind::Take(bundle) => self.get_archetype_after_bundle_take(bundle).flatten(),
        }
    }

    /// Every cached edge that leads somewhere, as (kind, target, column
    /// positions): for the integrity check.
    pub(crate) fn table_move_edges(
        &self,
    ) -> impl Iterator<Item = (EdgeKind, ArchetypeId, &[u32])> + '_ {
        let inserts = self
            .insert_bundle
            .iter()
            .map(|(b, a)| (EdgeKind::Insert(b), a.archetype_id, &*a.table_moves));
        let removes = self
            .remove_bundle
            .iter()
            .map(|(b, a)| (EdgeKind::Remove(b), a.archetype_id, &*a.table_moves));
        let takes = self.take_bundle.iter().filter_map(|(b, a)| {
            a.as_ref()
                .map(|a| (EdgeKind::Take(b), a.archetype_id, &*a.table_moves))
        });
        inserts.chain(removes).chain(takes)
    }

    /// Every cached insert edge, as (bundle, target).
    pub fn insert_edges(&self) -> impl Iterator<Item = (BundleId, ArchetypeId)> + '_ {
        self.insert_bundle
            .iter()
            .map(|(b, after)| (b, after.archetype_id))
    }

    /// Every cached remove edge, as (bundle, target).
    pub fn remove_edges(&self) -> impl Iterator<Item = (BundleId, ArchetypeId)> + '_ {
        self.remove_bundle.iter().map(|(b, a)| (b, a.archetype_id))
    }

    /// Every cached take edge that leads somewhere, as (bundle, target);
    /// takes of a bundle the archetype only partly has lead nowhere and are
    /// left out.
    pub(crate) fn take_edges(&self) -> impl Iterator<Item = (BundleId, ArchetypeId)> + '_ {
        self.take_bundle
            .iter()
            .filter_map(|(b, a)| a.as_ref().map(|a| (b, a.archetype_id)))
    }
}
