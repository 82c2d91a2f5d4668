//! Fragmentation warnings: storage patterns that cost iteration time or
//! memory, found in an inspection's summaries, with the thresholds that
//! decide when they are worth a warning.

use hashbrown::HashSet;

use super::{ArchetypeSummary, ComponentSummary, InspectionTotals, TableSummary};
use crate::{
    component::{ComponentId, StorageType},
    storage::TableId,
    world::World,
};

/// When the inspector warns about fragmentation. [`Default`] gives the
/// thresholds [`World::inspect`] uses.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FragmentationThresholds {
    /// A non-empty archetype with fewer entities than this is small.
    /// Default 8.
    pub small_archetype_entities: usize,
    /// Warn about small archetypes when there are at least this many...
    /// Default 8.
    pub min_small_archetypes: usize,
    /// ...and they are at least this fraction of the non-empty archetypes.
    /// Default 0.25.
    pub small_archetype_fraction: f64,
    /// Warn about empty archetypes when there are at least this many...
    /// Default 16.
    pub min_empty_archetypes: usize,
    /// ...and they are at least this fraction of all archetypes.
    /// Default 0.5.
    pub empty_archetype_fraction: f64,
    /// Warn about a table whose unused reserved bytes are at least this
    /// many... Default 64 KiB.
    pub min_unused_table_bytes: usize,
    /// ...and that uses less than this fraction of its reserved bytes.
    /// Default 0.5.
    pub table_use_fraction: f64,
    /// Warn about a table component when at least this many of the
    /// archetypes containing it have a twin: an archetype with the same
    /// components except that one. Default 16.
    pub min_component_twins: usize,
}

impl Default for FragmentationThresholds {
    fn default() -> Self {
        FragmentationThresholds {
            small_archetype_entities: 8,
            min_small_archetypes: 8,
            small_archetype_fraction: 0.25,
            min_empty_archetypes: 16,
            empty_archetype_fraction: 0.5,
            min_unused_table_bytes: 64 * 1024,
            table_use_fraction: 0.5,
            min_component_twins: 16,
        }
    }
}

/// A storage pattern that costs time or memory, and what to do about it.
/// Its [`Display`](std::fmt::Display) is the advice for a human.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum FragmentationWarning {
    /// Many archetypes hold few entities: iteration pays a per-archetype
    /// cost for little data.
    SmallArchetypes {
        /// The threshold: these archetypes hold fewer entities than this.
        threshold: usize,
        /// How many non-empty archetypes are this small.
        archetypes: usize,
        /// How many archetypes are non-empty.
        non_empty_archetypes: usize,
        /// The entities in the small archetypes.
        entities: usize,
        /// All entities.
        total_entities: usize,
    },
    /// Most archetypes are empty: left behind by one-component-at-a-time
    /// changes; every query still checks them once.
    EmptyArchetypes {
        /// How many archetypes are empty.
        empty: usize,
        /// How many archetypes there are.
        archetypes: usize,
    },
    /// A table keeps much more memory than its rows use.
    UnusedTableCapacity {
        /// The table.
        table: TableId,
        /// Bytes its rows use.
        used_bytes: usize,
        /// Bytes it has allocated.
        reserved_bytes: usize,
    },
    /// A table component splits many archetypes in two (with and without
    /// it): entities gain and lose it, and each add or remove moves the
    /// entity's whole row to another table.
    WidespreadComponent {
        /// The component.
        component: ComponentSummary,
        /// How many archetypes contain it (the empty ones included).
        archetypes: usize,
        /// How many of those have a twin archetype without it, the same
        /// otherwise. A component every entity has from spawn on has few.
        twins: usize,
        /// How many archetypes there are.
        total_archetypes: usize,
    },
}

impl World {
    /// The warnings an inspection with these summaries carries, most
    /// general first.
    pub(super) fn fragmentation_warnings(
        &self,
        components: &[ComponentSummary],
        archetypes: &[ArchetypeSummary],
        tables: &[TableSummary],
        totals: &InspectionTotals,
        thresholds: &FragmentationThresholds,
    ) -> Vec<FragmentationWarning> {
        let mut warnings = Vec::new();
        warnings.extend(small_archetypes_warning(archetypes, totals, thresholds));
        warnings.extend(empty_archetypes_warning(totals, thresholds));
        warnings.extend(unused_table_capacity_warnings(tables, thresholds));
        warnings
            .extend(self.widespread_component_warnings(components, archetypes, totals, thresholds));
        warnings
    }

    /// One warning per table component that has many twin archetypes,
    /// the most twinned first.
    fn widespread_component_warnings(
        &self,
        components: &[ComponentSummary],
        archetypes: &[ArchetypeSummary],
        totals: &InspectionTotals,
        thresholds: &FragmentationThresholds,
    ) -> Vec<FragmentationWarning> {
        let twins = twin_counts(components.len(), archetypes);
        let mut widespread: Vec<(&ComponentSummary, usize)> = components
            .iter()
            .zip(twins)
            .filter(|&(_, twins)| twins > 0 && twins >= thresholds.min_component_twins)
            .collect();
        widespread.sort_by_key(|&(component, twins)| (std::cmp::Reverse(twins), component.id));
        widespread
            .into_iter()
            .map(
                |(component, twins)| FragmentationWarning::WidespreadComponent {
                    component: component.clone(),
                    archetypes: self.archetypes.containing(component.id).len(),
                    twins,
                    total_archetypes: totals.archetypes,
                },
            )
            .collect()
    }
}

/// The warning about many small archetypes, if they are many enough.
fn small_archetypes_warning(
    archetypes: &[ArchetypeSummary],
    totals: &InspectionTotals,
    thresholds: &FragmentationThresholds,
) -> Option<FragmentationWarning> {
    let non_empty = totals.archetypes - totals.empty_archetypes;
    let (small, small_entities) = archetypes
        .iter()
        .filter(|a| a.entity_count > 0 && a.entity_count < thresholds.small_archetype_entities)
        .fold((0, 0), |(n, e), a| (n + 1, e + a.entity_count));
    (small > 0
        && small >= thresholds.min_small_archetypes
        && small as f64 >= thresholds.small_archetype_fraction * non_empty as f64)
        .then_some(FragmentationWarning::SmallArchetypes {
            threshold: thresholds.small_archetype_entities,
            archetypes: small,
            non_empty_archetypes: non_empty,
            entities: small_entities,
            total_entities: totals.entities,
        })
}

/// The warning about empty archetypes, if they are many enough.
fn empty_archetypes_warning(
    totals: &InspectionTotals,
    thresholds: &FragmentationThresholds,
) -> Option<FragmentationWarning> {
    let empty = totals.empty_archetypes;
    (empty > 0
        && empty >= thresholds.min_empty_archetypes
        && empty as f64 >= thresholds.empty_archetype_fraction * totals.archetypes as f64)
        .then_some(FragmentationWarning::EmptyArchetypes {
            empty,
            archetypes: totals.archetypes,
        })
}

/// One warning per table that keeps much more memory than its rows use.
fn unused_table_capacity_warnings<'a>(
    tables: &'a [TableSummary],
    thresholds: &'a FragmentationThresholds,
) -> impl Iterator<Item = FragmentationWarning> + 'a {
    tables
        .iter()
        .filter(|table| {
            let unused = table.reserved_bytes.saturating_sub(table.used_bytes);
            unused > 0
                && unused >= thresholds.min_unused_table_bytes
                && (table.used_bytes as f64)
                    < thresholds.table_use_fraction * table.reserved_bytes as f64
        })
        .map(|table| FragmentationWarning::UnusedTableCapacity {
            table: table.id,
            used_bytes: table.used_bytes,
            reserved_bytes: table.reserved_bytes,
        })
}

/// For each component id, how many archetypes containing it as a table
/// component have a twin: an archetype with the same components but it.
fn twin_counts(component_count: usize, archetypes: &[ArchetypeSummary]) -> Vec<usize> {
    // An archetype's component list (table ones sorted, then sparse ones
    // sorted) minus one component is its twin's list, if the twin exists.
    let sets: HashSet<Vec<ComponentId>> = archetypes
        .iter()
        .map(|a| a.components.iter().map(|c| c.id).collect())
        .collect();
    let mut twins = vec![0usize; component_count];
    for archetype in archetypes {
        let ids: Vec<ComponentId> = archetype.components.iter().map(|c| c.id).collect();
        for (i, component) in archetype.components.iter().enumerate() {
            if component.storage_type != StorageType::Table {
                continue;
            }
            let mut twin = ids.clone();
            twin.remove(i);
            if sets.contains(&twin) {
                twins[component.id.index()] += 1;
            }
        }
    }
    twins
}
