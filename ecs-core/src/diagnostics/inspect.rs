//! The inspection: a summary of how a world stores its entities
//! ([`World::inspect`]).
//!
//! ```text
//!  WorldInspection
//!  ├─ archetypes   id, table, entity count, components (Stunned(sparse))
//!  ├─ tables       id, rows, capacity, columns, bytes used / reserved
//!  ├─ sparse_sets  component, len, bytes used / reserved
//!  ├─ totals       entities, archetypes (and how many are empty), bytes
//!  └─ warnings     fragmentation a user should act on
//! ```

use std::{cell::UnsafeCell, fmt, mem::size_of};

use super::{FragmentationThresholds, FragmentationWarning};
use crate::{
    archetype::ArchetypeId,
    change_detection::Tick,
    component::{ComponentId, StorageType},
    entity::Entity,
    storage::{Column, TableId},
    world::World,
};

/// The bytes of one stored tick; a column stores two per value.
const TICK_BYTES: usize = size_of::<UnsafeCell<Tick>>();
/// The bytes of one entry of a sparse set's entity-index → row array.
const SPARSE_INDEX_BYTES: usize = size_of::<u32>();

/// A component as the inspector shows it.
///
/// Its [`Display`](fmt::Display) is the short name, marked `(sparse)` for
/// sparse-set storage: `Stunned(sparse)`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ComponentSummary {
    /// The component's id.
    pub id: ComponentId,
    /// The full name (the Rust type name for typed components).
    pub name: String,
    /// The name without module paths, also inside generics:
    /// `Wrapper<Inner>` for `my::Wrapper<my::Inner>`.
    pub short_name: String,
    /// Where the component's values are stored.
    pub storage_type: StorageType,
}

impl fmt::Display for ComponentSummary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.short_name)?;
        if self.storage_type == StorageType::SparseSet {
            f.write_str("(sparse)")?;
        }
        Ok(())
    }
}

/// One archetype: a set of components and the entities that have exactly
/// that set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArchetypeSummary {
    /// The archetype's id.
    pub id: ArchetypeId,
    /// The table holding its table components.
    pub table_id: TableId,
    /// The number of entities in it.
    pub entity_count: usize,
    /// Its components, table ones first, each group sorted by id.
    pub components: Vec<ComponentSummary>,
}

/// One column of a table: the values of one component.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ColumnSummary {
    /// The component stored.
    pub component: ComponentSummary,
    /// The size of one value in bytes.
    pub item_size: usize,
    /// Bytes of the values and their two ticks, for the table's rows.
    pub used_bytes: usize,
    /// Bytes allocated for values and ticks, spare capacity included.
    pub reserved_bytes: usize,
}

/// One table: struct-of-arrays storage shared by the archetypes that have
/// the same table components.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableSummary {
    /// The table's id.
    pub id: TableId,
    /// The archetypes whose entities live in this table.
    pub archetypes: Vec<ArchetypeId>,
    /// The number of rows (entities).
    pub rows: usize,
    /// The number of rows the table's entity list has room for.
    pub capacity: usize,
    /// One entry per component, sorted by component id.
    pub columns: Vec<ColumnSummary>,
    /// Bytes of the rows in use: every column's values and ticks, and the
    /// table's entity list.
    pub used_bytes: usize,
    /// Bytes allocated for the same, spare capacity included.
    pub reserved_bytes: usize,
}

/// The storage of one sparse-set component.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SparseSetSummary {
    /// The component stored.
    pub component: ComponentSummary,
    /// The number of values (entities that have the component).
    pub len: usize,
    /// Bytes in use: the values and their ticks, the dense entity list and
    /// the sparse entity-index → row array (which reaches the highest
    /// entity index that ever had the component).
    pub used_bytes: usize,
    /// Bytes allocated for the same, spare capacity included.
    pub reserved_bytes: usize,
}

/// World-wide counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct InspectionTotals {
    /// Entities stored in archetypes (reserved entities not yet spawned
    /// are not counted).
    pub entities: usize,
    /// Archetypes, the empty ones included.
    pub archetypes: usize,
    /// Archetypes with no entity (the component-less archetype included).
    pub empty_archetypes: usize,
    /// Tables, the column-less one included.
    pub tables: usize,
    /// Sparse sets (one per sparse-set component that an archetype has had).
    pub sparse_sets: usize,
    /// Sum of the tables' and sparse sets' `used_bytes`.
    pub used_bytes: usize,
    /// Sum of the tables' and sparse sets' `reserved_bytes`.
    pub reserved_bytes: usize,
}

impl InspectionTotals {
    /// The counts and byte sums of these summaries.
    fn sum(
        archetypes: &[ArchetypeSummary],
        tables: &[TableSummary],
        sparse_sets: &[SparseSetSummary],
    ) -> InspectionTotals {
        InspectionTotals {
            entities: archetypes.iter().map(|a| a.entity_count).sum(),
            archetypes: archetypes.len(),
            empty_archetypes: archetypes.iter().filter(|a| a.entity_count == 0).count(),
            tables: tables.len(),
            sparse_sets: sparse_sets.len(),
            used_bytes: tables.iter().map(|t| t.used_bytes).sum::<usize>()
                + sparse_sets.iter().map(|s| s.used_bytes).sum::<usize>(),
            reserved_bytes: tables.iter().map(|t| t.reserved_bytes).sum::<usize>()
                + sparse_sets.iter().map(|s| s.reserved_bytes).sum::<usize>(),
        }
    }
}

/// A summary of how a [`World`] stores its entities: archetypes, tables,
/// sparse sets, totals and fragmentation warnings. Made by
/// [`World::inspect`]; print it for an aligned text report, or read its
/// fields.
///
/// Bytes count what the world allocated for component values and their
/// bookkeeping: in a table, each column's values (item size × rows, or ×
/// capacity for `reserved_bytes`) and its added and changed ticks, and the
/// table's entity list; in a sparse set, the same for its dense column and
/// entity list plus its sparse entity-index → row array. Not counted:
/// heap memory the values own themselves (a `String`'s text), allocator
/// overhead, `Vec` headers, archetypes' own entity lists, edges, the
/// component index, the entity allocator, resources.
///
/// Printed, for a small world:
///
/// ```text
/// World: 15 entities, 5 archetypes (2 empty), 4 tables, 1 sparse set; 526 B used of 920 B reserved
///
/// Archetypes: 5 (2 empty, not listed: 0, 4)
///    id  table  entities  components
///     1      1         7  Pos, Vel
///     2      2         5  Pos
///     3      1         3  Pos, Vel, Stunned(sparse)
///
/// Tables: 4 (1 with no rows and no memory, not listed: 0)
///    id  archetypes  rows  capacity   used  reserved  columns
///     1           2    10        16  360 B     576 B  Pos, Vel
///     2           1     5         8  100 B     160 B  Pos
///     3           1     0         4    0 B      96 B  Vel
///
/// Sparse sets: 1
///    len  used  reserved  component
///      3  66 B      88 B  Stunned
///
/// Warnings: none
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorldInspection {
    /// Every archetype, by id, the empty ones included (the
    /// [`Display`](fmt::Display) output lists only their ids).
    pub archetypes: Vec<ArchetypeSummary>,
    /// Every table, by id.
    pub tables: Vec<TableSummary>,
    /// Every sparse set, in the order they were created.
    pub sparse_sets: Vec<SparseSetSummary>,
    /// World-wide counts.
    pub totals: InspectionTotals,
    /// What looks fragmented, most general first; empty for a healthy
    /// world.
    pub warnings: Vec<FragmentationWarning>,
}

impl WorldInspection {
    /// The archetypes that hold at least one entity.
    pub fn non_empty_archetypes(&self) -> impl Iterator<Item = &ArchetypeSummary> + '_ {
        self.archetypes.iter().filter(|a| a.entity_count > 0)
    }

    /// The archetypes that hold no entity.
    pub fn empty_archetypes(&self) -> impl Iterator<Item = &ArchetypeSummary> + '_ {
        self.archetypes.iter().filter(|a| a.entity_count == 0)
    }
}

impl World {
    /// A summary of how this world stores its entities, with the default
    /// [`FragmentationThresholds`]. See [`WorldInspection`] for what the
    /// byte counts include.
    ///
    /// ```
    /// use ecs::prelude::*;
    ///
    /// #[derive(Component)]
    /// struct Position(f32, f32);
    /// #[derive(Component)]
    /// #[component(storage = "SparseSet")]
    /// struct Stunned;
    ///
    /// let mut world = World::new();
    /// world.spawn_batch((0..100).map(|i| Position(i as f32, 0.0))).for_each(drop);
    /// let e = world.spawn(Position(0.0, 0.0)).id();
    /// world.entity_mut(e).insert(Stunned);
    ///
    /// let inspection = world.inspect();
    /// assert_eq!(inspection.totals.entities, 101);
    /// let stunned = inspection.non_empty_archetypes().find(|a| a.components.len() == 2).unwrap();
    /// assert_eq!(stunned.components[1].to_string(), "Stunned(sparse)");
    /// assert!(inspection.warnings.is_empty());
    /// println!("{inspection}");
    /// ```
    pub fn inspect(&self) -> WorldInspection {
        self.inspect_with(&FragmentationThresholds::default())
    }

    /// [`World::inspect`] with chosen warning thresholds.
    pub fn inspect_with(&self, thresholds: &FragmentationThresholds) -> WorldInspection {
        let components = self.component_summaries();
        let archetypes = self.archetype_summaries(&components);
        let tables = self.table_summaries(&components, &archetypes);
        let sparse_sets = self.sparse_set_summaries(&components);
        let totals = InspectionTotals::sum(&archetypes, &tables, &sparse_sets);
        let warnings =
            self.fragmentation_warnings(&components, &archetypes, &tables, &totals, thresholds);
        WorldInspection {
            archetypes,
            tables,
            sparse_sets,
            totals,
            warnings,
        }
    }

    /// Every archetype, by id.
    fn archetype_summaries(&self, components: &[ComponentSummary]) -> Vec<ArchetypeSummary> {
        self.archetypes
            .iter()
            .map(|archetype| ArchetypeSummary {
                id: archetype.id(),
                table_id: archetype.table_id(),
                entity_count: archetype.len(),
                components: archetype
                    .components()
                    .map(|id| components[id.index()].clone())
                    .collect(),
            })
            .collect()
    }

    /// Every table, by id, with the archetypes that map to it.
    fn table_summaries(
        &self,
        components: &[ComponentSummary],
        archetypes: &[ArchetypeSummary],
    ) -> Vec<TableSummary> {
        let mut archetypes_by_table = vec![Vec::new(); self.storages.tables.len()];
        for archetype in archetypes {
            archetypes_by_table[archetype.table_id.index()].push(archetype.id);
        }
        self.storages
            .tables
            .iter()
            .zip(archetypes_by_table)
            .enumerate()
            .map(|(index, (table, archetypes))| {
                let columns: Vec<ColumnSummary> = table
                    .component_ids()
                    .iter()
                    .zip(table.columns())
                    .map(|(&id, column)| {
                        let (used_bytes, reserved_bytes) = column_bytes(column);
                        ColumnSummary {
                            component: components[id.index()].clone(),
                            item_size: column.item_layout().size(),
                            used_bytes,
                            reserved_bytes,
                        }
                    })
                    .collect();
                let entity_bytes = size_of::<Entity>();
                TableSummary {
                    id: TableId::new(index),
                    archetypes,
                    rows: table.entity_count(),
                    capacity: table.entity_capacity(),
                    used_bytes: columns.iter().map(|c| c.used_bytes).sum::<usize>()
                        + entity_bytes * table.entity_count(),
                    reserved_bytes: columns.iter().map(|c| c.reserved_bytes).sum::<usize>()
                        + entity_bytes * table.entity_capacity(),
                    columns,
                }
            })
            .collect()
    }

    /// Every sparse set, in the order they were created.
    fn sparse_set_summaries(&self, components: &[ComponentSummary]) -> Vec<SparseSetSummary> {
        self.storages
            .sparse_sets
            .iter()
            .map(|(id, set)| {
                let (used, reserved) = column_bytes(set.column());
                let (sparse_len, sparse_capacity) = set.sparse_len_and_capacity();
                SparseSetSummary {
                    component: components[id.index()].clone(),
                    len: set.len(),
                    used_bytes: used
                        + size_of::<Entity>() * set.len()
                        + SPARSE_INDEX_BYTES * sparse_len,
                    reserved_bytes: reserved
                        + size_of::<Entity>() * set.entity_capacity()
                        + SPARSE_INDEX_BYTES * sparse_capacity,
                }
            })
            .collect()
    }

    /// A summary of every registered component, indexed by id: made once,
    /// since shortening names is most of an inspection's work.
    pub(super) fn component_summaries(&self) -> Vec<ComponentSummary> {
        self.components
            .iter()
            .map(|info| ComponentSummary {
                id: info.id(),
                name: info.name().to_owned(),
                short_name: short_type_name(info.name()),
                storage_type: info.storage_type(),
            })
            .collect()
    }
}

/// (used, reserved) bytes of a column's values and ticks.
fn column_bytes(column: &Column) -> (usize, usize) {
    // Rows are a stride apart: the size padded to the alignment.
    let item = column.item_layout().pad_to_align().size();
    let used = (item + 2 * TICK_BYTES) * column.len();
    // Zero-sized values report an unbounded capacity and take no memory.
    let values = if item == 0 {
        0
    } else {
        item * column.value_capacity()
    };
    (used, values + TICK_BYTES * column.tick_capacity())
}

/// A type name without module paths, also inside generics, tuples, arrays
/// and references: `Wrapper<Inner>` for `my::Wrapper<other::Inner>`.
pub(crate) fn short_type_name(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    // Where the path segment being written started in `out`.
    let mut segment_start = 0;
    let mut chars = name.chars().peekable();
    while let Some(c) = chars.next() {
        if c == ':' && chars.peek() == Some(&':') {
            chars.next();
            if out.len() == segment_start {
                // `<T as Trait>::Assoc`: there is no path to drop.
                out.push_str("::");
                segment_start = out.len();
            } else {
                out.truncate(segment_start);
            }
        } else {
            out.push(c);
            if !(c.is_alphanumeric() || c == '_') {
                segment_start = out.len();
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use std::mem::size_of;

    use super::*;
    use crate::diagnostics::text::{format_bytes, MAX_COMPONENT_WARNINGS};
    use crate::prelude::*;

    #[derive(Component)]
    struct Pos(#[allow(dead_code)] u32);
    #[derive(Component)]
    struct Vel(#[allow(dead_code)] u64);
    #[derive(Component)]
    #[component(storage = "SparseSet")]
    struct Stunned(#[allow(dead_code)] u16);

    fn n(full: usize) -> usize {
        if cfg!(miri) {
            full / 10
        } else {
            full
        }
    }

    /// Bytes a one-column table or a sparse set uses per stored value of
    /// `T`: the value, its two ticks and its entry in the entity list.
    fn per_value<T>() -> usize {
        size_of::<T>() + 2 * size_of::<Tick>() + size_of::<Entity>()
    }

    /// Archetypes: 0 {} empty, 1 {Pos, Vel} 7, 2 {Pos} 5,
    /// 3 {Pos, Vel, Stunned} 3, 4 {Vel} empty.
    fn known_world() -> (World, Vec<Entity>) {
        let mut world = World::new();
        let pv: Vec<Entity> = (0..10)
            .map(|i| world.spawn((Pos(i), Vel(0))).id())
            .collect();
        for i in 0..5 {
            world.spawn(Pos(i));
        }
        for &e in &pv[..3] {
            world.entity_mut(e).insert(Stunned(1));
        }
        let lone = world.spawn(Vel(1)).id();
        world.despawn(lone);
        (world, pv)
    }

    #[test]
    fn summary_counts_entities_archetypes_and_bytes() {
        let (world, pv) = known_world();
        let inspection = world.inspect();
        let counts: Vec<usize> = inspection
            .archetypes
            .iter()
            .map(|a| a.entity_count)
            .collect();
        assert_eq!(counts, [0, 7, 5, 3, 0]);
        assert_eq!(
            inspection.totals,
            InspectionTotals {
                entities: 15,
                archetypes: 5,
                empty_archetypes: 2,
                tables: 4,
                sparse_sets: 1,
                used_bytes: inspection.totals.used_bytes,
                reserved_bytes: inspection.totals.reserved_bytes,
            }
        );
        let empty: Vec<usize> = inspection
            .empty_archetypes()
            .map(|a| a.id.index())
            .collect();
        assert_eq!(empty, [0, 4]);

        let stunned = &inspection.archetypes[3];
        let labels: Vec<String> = stunned.components.iter().map(|c| c.to_string()).collect();
        assert_eq!(labels, ["Pos", "Vel", "Stunned(sparse)"]);
        assert!(stunned.components[2].name.ends_with("::Stunned"));
        assert_eq!(stunned.table_id, inspection.archetypes[1].table_id);

        let table = &inspection.tables[inspection.archetypes[1].table_id.index()];
        assert_eq!(table.archetypes, [ArchetypeId::new(1), ArchetypeId::new(3)]);
        assert_eq!(table.rows, 10);
        assert_eq!(table.columns.len(), 2);
        assert_eq!(table.columns[0].item_size, size_of::<Pos>());
        assert_eq!(
            table.columns[1].used_bytes,
            10 * (size_of::<Vel>() + 2 * size_of::<Tick>())
        );
        assert_eq!(
            table.used_bytes,
            10 * (size_of::<Pos>()
                + size_of::<Vel>()
                + 4 * size_of::<Tick>()
                + size_of::<Entity>())
        );
        let pos_only = &inspection.tables[inspection.archetypes[2].table_id.index()];
        assert_eq!(pos_only.used_bytes, 5 * per_value::<Pos>());
        // The despawned entity's table keeps its memory.
        let vel_only = &inspection.tables[inspection.archetypes[4].table_id.index()];
        assert_eq!((vel_only.rows, vel_only.used_bytes), (0, 0));
        assert!(vel_only.reserved_bytes >= per_value::<Vel>());

        let set = &inspection.sparse_sets[0];
        assert_eq!(set.component.to_string(), "Stunned(sparse)");
        assert_eq!(set.len, 3);
        let sparse_len = pv[..3].iter().map(|e| e.index() as usize).max().unwrap() + 1;
        assert_eq!(
            set.used_bytes,
            3 * per_value::<Stunned>() + sparse_len * size_of::<u32>()
        );

        for table in &inspection.tables {
            assert!(table.reserved_bytes >= table.used_bytes);
            assert!(table.capacity >= table.rows);
        }
        assert!(set.reserved_bytes >= set.used_bytes);
        let used: usize = inspection
            .tables
            .iter()
            .map(|t| t.used_bytes)
            .sum::<usize>()
            + set.used_bytes;
        assert_eq!(inspection.totals.used_bytes, used);
        assert!(inspection.totals.reserved_bytes >= used);
        assert!(inspection.warnings.is_empty(), "{:?}", inspection.warnings);
    }

    #[test]
    fn zero_sized_components_take_no_value_bytes() {
        #[derive(Component)]
        struct Marker;
        let mut world = World::new();
        world
            .spawn_batch((0..n(100)).map(|_| Marker))
            .for_each(drop);
        let inspection = world.inspect();
        let table = &inspection.tables[inspection.archetypes[1].table_id.index()];
        assert_eq!(table.columns[0].item_size, 0);
        assert_eq!(table.columns[0].used_bytes, n(100) * 2 * size_of::<Tick>());
        // A zero-sized column reports unbounded capacity: it must not
        // overflow or inflate the count.
        assert!(table.reserved_bytes < 1 << 20);
    }

    macro_rules! markers {
        ($($name:ident),*) => {
            $(#[derive(Component)] struct $name;)*
            const INSERT_MARKER: &[fn(&mut EntityWorldMut<'_>)] = &[$(|e| { e.insert($name); }),*];
        };
    }
    markers!(
        Ma, Mb, Mc, Md, Me, Mf, Mg, Mh, Mi, Mj, Mk, Ml, Mm, Mn, Mo, Mp, Mq, Mr, Ms, Mt, Mu, Mv, Mw,
        Mx, My, Mz
    );

    #[test]
    fn fragmented_world_warns() {
        assert_eq!(INSERT_MARKER.len(), 26);
        let mut world = World::new();
        // Each entity creates about 13 archetypes, slow under Miri: there,
        // a smaller world meets smaller thresholds.
        let (count, thresholds) = if cfg!(miri) {
            let thresholds = FragmentationThresholds {
                min_component_twins: 2,
                ..FragmentationThresholds::default()
            };
            (8, thresholds)
        } else {
            (300, FragmentationThresholds::default())
        };
        for i in 0..count {
            let bits = (i as u32 + 1).wrapping_mul(0x9E37_79B9) >> 6;
            let mut entity = world.spawn(Pos(i as u32));
            for (k, insert) in INSERT_MARKER.iter().enumerate() {
                if bits & (1 << k) != 0 {
                    insert(&mut entity);
                }
            }
        }
        let inspection = world.inspect_with(&thresholds);
        assert_eq!(inspection.totals.entities, count);
        let small = inspection.warnings.iter().find_map(|w| match w {
            FragmentationWarning::SmallArchetypes {
                archetypes,
                non_empty_archetypes,
                entities,
                ..
            } => Some((*archetypes, *non_empty_archetypes, *entities)),
            _ => None,
        });
        let (small, non_empty, entities) = small.expect("small-archetype warning");
        assert!(small >= count * 9 / 10, "{small} of {count}");
        assert!(non_empty >= small && entities <= count);
        assert!(inspection
            .warnings
            .iter()
            .any(|w| matches!(w, FragmentationWarning::EmptyArchetypes { .. })));
        let widespread: Vec<&str> = inspection
            .warnings
            .iter()
            .filter_map(|w| match w {
                FragmentationWarning::WidespreadComponent { component, .. } => {
                    Some(component.short_name.as_str())
                }
                _ => None,
            })
            .collect();
        assert!(
            !widespread.is_empty() && widespread.iter().all(|name| name.starts_with('M')),
            "{widespread:?}"
        );
        let text = inspection.to_string();
        assert!(
            text.contains(&format!("{small} archetypes hold fewer than 8 entities")),
            "{text}"
        );
        let shown = text
            .lines()
            .filter(|l| l.contains("(table storage) is in"))
            .count();
        assert_eq!(
            shown,
            widespread.len().min(MAX_COMPONENT_WARNINGS),
            "{text}"
        );
        if widespread.len() > MAX_COMPONENT_WARNINGS {
            let more = widespread.len() - MAX_COMPONENT_WARNINGS;
            assert!(
                text.contains(&format!("... and {more} more components")),
                "{text}"
            );
        }
    }

    #[test]
    fn healthy_world_has_no_warnings() {
        let mut world = World::new();
        world
            .spawn_batch((0..n(500)).map(|i| (Pos(i as u32), Vel(0))))
            .for_each(drop);
        let some: Vec<Entity> = world
            .spawn_batch((0..n(500)).map(|i| Pos(i as u32)))
            .collect();
        for &e in some.iter().step_by(10) {
            world.entity_mut(e).insert(Stunned(0));
        }
        let inspection = world.inspect();
        assert!(inspection.warnings.is_empty(), "{:?}", inspection.warnings);
        assert!(inspection.to_string().contains("Warnings: none"));
    }

    #[test]
    fn table_with_unused_capacity_warns() {
        let mut world = World::new();
        let entities: Vec<Entity> = world
            .spawn_batch((0..200).map(|i| (Pos(i), Vel(0))))
            .collect();
        for e in entities {
            world.despawn(e);
        }
        let table_id = world.archetypes()[ArchetypeId::new(1)].table_id();
        // 200 rows hold ~7 KiB: below the default 64 KiB.
        assert!(world.inspect().warnings.is_empty());
        let thresholds = FragmentationThresholds {
            min_unused_table_bytes: 1024,
            ..FragmentationThresholds::default()
        };
        let warnings = world.inspect_with(&thresholds).warnings;
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        match &warnings[0] {
            FragmentationWarning::UnusedTableCapacity {
                table,
                used_bytes,
                reserved_bytes,
            } => {
                assert_eq!(*table, table_id);
                assert_eq!(*used_bytes, 0);
                assert!(
                    *reserved_bytes
                        >= 200
                            * (size_of::<Pos>()
                                + size_of::<Vel>()
                                + 4 * size_of::<Tick>()
                                + size_of::<Entity>())
                );
            }
            other => panic!("unexpected warning {other:?}"),
        }
        assert!(warnings[0]
            .to_string()
            .starts_with(&format!("table {} uses 0 B of ", table_id.index())));
    }

    #[test]
    fn display_lists_non_empty_archetypes_in_aligned_columns() {
        let (world, _) = known_world();
        let text = world.inspect().to_string();
        assert!(
            text.starts_with("World: 15 entities, 5 archetypes (2 empty), 4 tables, 1 sparse set;"),
            "{text}"
        );
        assert!(
            text.contains("Archetypes: 5 (2 empty, not listed: 0, 4)\n"),
            "{text}"
        );
        assert!(text.contains("Stunned(sparse)"), "{text}");

        // The archetype section: header and one row per non-empty archetype,
        // the component lists starting in one column.
        let section: Vec<&str> = text
            .lines()
            .skip_while(|l| !l.starts_with("Archetypes:"))
            .skip(1)
            .take_while(|l| !l.is_empty())
            .collect();
        assert_eq!(section.len(), 4, "{text}");
        let column = section[0].find("components").unwrap();
        for (line, first) in
            section[1..]
                .iter()
                .zip(["Pos, Vel", "Pos", "Pos, Vel, Stunned(sparse)"])
        {
            assert_eq!(&line[column..], first, "{text}");
        }
    }

    #[test]
    fn short_names_drop_paths_also_inside_generics() {
        assert_eq!(short_type_name("a::b::Position"), "Position");
        assert_eq!(short_type_name("Position"), "Position");
        assert_eq!(
            short_type_name("my::Wrapper<other::Inner, alloc::vec::Vec<u8>>"),
            "Wrapper<Inner, Vec<u8>>"
        );
        assert_eq!(
            short_type_name("(a::A, [b::B; 4], &c::C)"),
            "(A, [B; 4], &C)"
        );
        assert_eq!(
            short_type_name("<a::T as b::Trait>::Assoc"),
            "<T as Trait>::Assoc"
        );
        assert_eq!(format_bytes(1023), "1023 B");
        assert_eq!(format_bytes(1536), "1.5 KiB");
        assert_eq!(format_bytes(3 << 20), "3.0 MiB");
    }
}
