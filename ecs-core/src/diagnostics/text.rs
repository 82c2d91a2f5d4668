//! The inspection as text: the aligned tables and the warnings' advice.

use std::fmt;

use super::{ComponentSummary, FragmentationWarning, TableSummary, WorldInspection};

fn percent(part: usize, whole: usize) -> f64 {
    if whole == 0 {
        0.0
    } else {
        part as f64 * 100.0 / whole as f64
    }
}

impl fmt::Display for FragmentationWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FragmentationWarning::SmallArchetypes {
                threshold,
                archetypes,
                non_empty_archetypes,
                entities,
                total_entities,
            } => write!(
                f,
                "{archetypes} archetypes hold fewer than {threshold} entities \
                 ({:.1}% of non-empty archetypes, {:.1}% of entities): \
                 store rare per-entity variations as component data (an enum or \
                 flags field) rather than as marker components",
                percent(*archetypes, *non_empty_archetypes),
                percent(*entities, *total_entities),
            ),
            FragmentationWarning::EmptyArchetypes { empty, archetypes } => write!(
                f,
                "{empty} of {archetypes} archetypes ({:.1}%) are empty: entities passed \
                 through or left them; inserting components together as one bundle \
                 skips intermediate archetypes",
                percent(*empty, *archetypes),
            ),
            FragmentationWarning::UnusedTableCapacity {
                table,
                used_bytes,
                reserved_bytes,
            } => write!(
                f,
                "table {} uses {} of {} reserved ({:.1}%): its columns keep their \
                 capacity after entities leave",
                table.index(),
                format_bytes(*used_bytes),
                format_bytes(*reserved_bytes),
                percent(*used_bytes, *reserved_bytes),
            ),
            FragmentationWarning::WidespreadComponent {
                component,
                archetypes,
                twins,
                total_archetypes,
            } => write!(
                f,
                "`{component}` (table storage) is in {archetypes} of {total_archetypes} \
                 archetypes, {twins} of them with a twin lacking only it: if it is added \
                 and removed often, `#[component(storage = \"SparseSet\")]` spares each \
                 change a table move",
            ),
        }
    }
}

pub(super) fn format_bytes(bytes: usize) -> String {
    const UNITS: [&str; 3] = ["KiB", "MiB", "GiB"];
    if bytes < 1024 {
        return format!("{bytes} B");
    }
    let mut value = bytes as f64 / 1024.0;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    format!("{value:.1} {}", UNITS[unit])
}

fn counted(count: usize, one: &str, many: &str) -> String {
    format!("{count} {}", if count == 1 { one } else { many })
}

fn join<T: fmt::Display>(items: &[T]) -> String {
    if items.is_empty() {
        return "-".to_owned();
    }
    let parts: Vec<String> = items.iter().map(T::to_string).collect();
    parts.join(", ")
}

/// Cells of text written in columns: every column right-aligned (numbers)
/// except the last, which is left-aligned and not padded (names).
struct TextTable {
    rows: Vec<Vec<String>>,
}

impl TextTable {
    fn new(header: &[&str]) -> TextTable {
        TextTable {
            rows: vec![header.iter().map(|h| (*h).to_owned()).collect()],
        }
    }

    fn row(&mut self, cells: Vec<String>) {
        self.rows.push(cells);
    }

    fn write(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let columns = self.rows[0].len();
        let widths: Vec<usize> = (0..columns)
            .map(|c| {
                self.rows
                    .iter()
                    .map(|r| r[c].chars().count())
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        for row in &self.rows {
            f.write_str(" ")?;
            for (c, cell) in row.iter().enumerate() {
                if c + 1 == columns {
                    write!(f, "  {cell}")?;
                } else {
                    write!(f, "  {cell:>width$}", width = widths[c])?;
                }
            }
            f.write_str("\n")?;
        }
        Ok(())
    }
}

/// Prints at most this many per-component warnings.
pub(super) const MAX_COMPONENT_WARNINGS: usize = 5;

/// Lists at most this many ids of collapsed (empty) entries.
const MAX_LISTED_IDS: usize = 16;

fn id_list(ids: impl Iterator<Item = usize>) -> String {
    let ids: Vec<usize> = ids.collect();
    let mut text: Vec<String> = ids
        .iter()
        .take(MAX_LISTED_IDS)
        .map(usize::to_string)
        .collect();
    if ids.len() > MAX_LISTED_IDS {
        text.push(format!("... {} more", ids.len() - MAX_LISTED_IDS));
    }
    text.join(", ")
}

impl fmt::Display for WorldInspection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write_totals(f)?;
        self.write_archetypes(f)?;
        self.write_tables(f)?;
        self.write_sparse_sets(f)?;
        self.write_warnings(f)
    }
}

impl WorldInspection {
    /// The first line: the totals.
    fn write_totals(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let t = &self.totals;
        writeln!(
            f,
            "World: {}, {} ({} empty), {}, {}; {} used of {} reserved",
            counted(t.entities, "entity", "entities"),
            counted(t.archetypes, "archetype", "archetypes"),
            t.empty_archetypes,
            counted(t.tables, "table", "tables"),
            counted(t.sparse_sets, "sparse set", "sparse sets"),
            format_bytes(t.used_bytes),
            format_bytes(t.reserved_bytes),
        )
    }

    /// The non-empty archetypes, one row each; the empty ones by id.
    fn write_archetypes(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let t = &self.totals;
        write!(f, "\nArchetypes: {}", t.archetypes)?;
        if t.empty_archetypes > 0 {
            write!(
                f,
                " ({} empty, not listed: {})",
                t.empty_archetypes,
                id_list(self.empty_archetypes().map(|a| a.id.index()))
            )?;
        }
        f.write_str("\n")?;
        let mut archetypes = TextTable::new(&["id", "table", "entities", "components"]);
        for a in self.non_empty_archetypes() {
            archetypes.row(vec![
                a.id.index().to_string(),
                a.table_id.index().to_string(),
                a.entity_count.to_string(),
                join(&a.components),
            ]);
        }
        archetypes.write(f)
    }

    /// The tables with rows or memory, one row each; the others by id.
    fn write_tables(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (listed, unlisted): (Vec<&TableSummary>, Vec<&TableSummary>) = self
            .tables
            .iter()
            .partition(|table| table.rows > 0 || table.reserved_bytes > 0);
        write!(f, "\nTables: {}", self.totals.tables)?;
        if !unlisted.is_empty() {
            write!(
                f,
                " ({} with no rows and no memory, not listed: {})",
                unlisted.len(),
                id_list(unlisted.iter().map(|table| table.id.index()))
            )?;
        }
        f.write_str("\n")?;
        let mut tables = TextTable::new(&[
            "id",
            "archetypes",
            "rows",
            "capacity",
            "used",
            "reserved",
            "columns",
        ]);
        for table in listed {
            let columns: Vec<&ComponentSummary> =
                table.columns.iter().map(|c| &c.component).collect();
            tables.row(vec![
                table.id.index().to_string(),
                table.archetypes.len().to_string(),
                table.rows.to_string(),
                table.capacity.to_string(),
                format_bytes(table.used_bytes),
                format_bytes(table.reserved_bytes),
                join(&columns),
            ]);
        }
        tables.write(f)
    }

    /// The sparse sets, one row each.
    fn write_sparse_sets(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "\nSparse sets: {}", self.totals.sparse_sets)?;
        if !self.sparse_sets.is_empty() {
            let mut sets = TextTable::new(&["len", "used", "reserved", "component"]);
            for set in &self.sparse_sets {
                sets.row(vec![
                    set.len.to_string(),
                    format_bytes(set.used_bytes),
                    format_bytes(set.reserved_bytes),
                    set.component.short_name.clone(),
                ]);
            }
            sets.write(f)?;
        }
        Ok(())
    }

    /// The warnings' advice, at most [`MAX_COMPONENT_WARNINGS`] about
    /// single components.
    fn write_warnings(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.warnings.is_empty() {
            return writeln!(f, "\nWarnings: none");
        }
        writeln!(f, "\nWarnings: {}", self.warnings.len())?;
        let mut components_left_out = 0;
        let mut components_shown = 0;
        for warning in &self.warnings {
            if let FragmentationWarning::WidespreadComponent { .. } = warning {
                if components_shown == MAX_COMPONENT_WARNINGS {
                    components_left_out += 1;
                    continue;
                }
                components_shown += 1;
            }
            writeln!(f, "  - {warning}")?;
        }
        if components_left_out > 0 {
            writeln!(
                f,
                "  - ... and {components_left_out} more components like these (see `warnings`)"
            )?;
        }
        Ok(())
    }
}
