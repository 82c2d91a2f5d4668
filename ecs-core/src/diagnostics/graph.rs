//! The archetype graph as Graphviz DOT: archetypes as nodes, cached
//! insert and remove edges as arrows.

use std::fmt::Write as _;

use crate::{archetype::ArchetypeId, bundle::BundleId, component::ComponentId, world::World};

impl World {
    /// The archetype graph in Graphviz DOT: one node per archetype
    /// (labelled with its id, its components' short names and its entity
    /// count; empty archetypes are grey), one arrow per cached edge. Insert
    /// edges are solid, labelled `+` and the bundle's components (and the
    /// required components the insert adds); remove edges are dashed,
    /// labelled `-` and the bundle's components; edges cached by `take`
    /// are dashed too, labelled `(take)`, unless a remove edge of the same
    /// bundle already shows the move.
    ///
    /// Edges that lead back to their own archetype (inserting only
    /// components the archetype has, removing only ones it lacks) are
    /// left out: they change no storage. Edges exist only for transitions
    /// the world has performed, since they are cached on first use.
    ///
    /// ```
    /// use ecs::prelude::*;
    ///
    /// #[derive(Component)]
    /// struct Position(f32, f32);
    /// #[derive(Component)]
    /// struct Velocity(f32, f32);
    ///
    /// let mut world = World::new();
    /// let e = world.spawn(Position(0.0, 0.0)).id();
    /// world.entity_mut(e).insert(Velocity(1.0, 0.0)).remove::<Velocity>();
    /// let dot = world.archetype_graph_dot();
    /// assert!(dot.starts_with("digraph archetypes {"));
    /// assert!(dot.contains(r#"a1 -> a2 [label="+Velocity"];"#));
    /// assert!(dot.contains(r#"a2 -> a1 [label="-Velocity", style=dashed];"#));
    /// // `dot -Tsvg graph.dot -o graph.svg` renders it.
    /// ```
    pub fn archetype_graph_dot(&self) -> String {
        let labels: Vec<String> = self
            .component_summaries()
            .iter()
            .map(ToString::to_string)
            .collect();
        let names = |ids: &mut dyn Iterator<Item = ComponentId>| -> String {
            let names: Vec<&str> = ids.map(|id| labels[id.index()].as_str()).collect();
            names.join(", ")
        };
        let bundle_names =
            |bundle: BundleId| names(&mut self.bundles[bundle].components().iter().copied());

        let mut out = String::from(
            "digraph archetypes {\n    rankdir=LR;\n    node [shape=box, fontname=\"monospace\"];\n",
        );
        for archetype in self.archetypes.iter() {
            let mut components = names(&mut archetype.components());
            if components.is_empty() {
                components.push_str("(no components)");
            }
            let count = archetype.len();
            let noun = if count == 1 { "entity" } else { "entities" };
            let grey = if count == 0 {
                ", color=gray, fontcolor=gray"
            } else {
                ""
            };
            let id = archetype.id().index();
            // The `\n` written here is DOT's line break inside a label.
            let _ = writeln!(
                out,
                "    a{id} [label=\"#{id} {}\\n{count} {noun}\"{grey}];",
                dot_escape(&components),
            );
        }
        for archetype in self.archetypes.iter() {
            let from = archetype.id();
            let edges = archetype.edges();
            for (bundle, to) in edges.insert_edges() {
                let mut label = format!("+{}", bundle_names(bundle));
                let after = edges.get_archetype_after_bundle_insert(bundle);
                if let Some(after) = after.filter(|a| !a.required_components.is_empty()) {
                    let required = names(&mut after.required_components.iter().map(|r| r.id));
                    let _ = write!(label, " (+{required} required)");
                }
                write_edge(&mut out, from, to, &label, false);
            }
            for (bundle, to) in edges.remove_edges() {
                write_edge(
                    &mut out,
                    from,
                    to,
                    &format!("-{}", bundle_names(bundle)),
                    true,
                );
            }
            for (bundle, to) in edges.take_edges() {
                if edges.get_archetype_after_bundle_remove(bundle) != Some(to) {
                    let label = format!("-{} (take)", bundle_names(bundle));
                    write_edge(&mut out, from, to, &label, true);
                }
            }
        }
        out.push_str("}\n");
        out
    }
}

/// Writes one edge statement, unless it leads back to `from`.
fn write_edge(out: &mut String, from: ArchetypeId, to: ArchetypeId, label: &str, dashed: bool) {
    if from == to {
        return;
    }
    let style = if dashed { ", style=dashed" } else { "" };
    let _ = writeln!(
        out,
        "    a{} -> a{} [label=\"{}\"{style}];",
        from.index(),
        to.index(),
        dot_escape(label)
    );
}

/// `text` escaped for a double-quoted DOT string.
fn dot_escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            '\r' => {}
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;
    use crate::prelude::*;

    #[derive(Component)]
    struct Pos;
    #[derive(Component)]
    struct Vel;
    #[derive(Component)]
    #[component(storage = "SparseSet")]
    struct Stunned;
    #[derive(Component)]
    struct Wrapper<T: Send + Sync + 'static>(#[allow(dead_code)] T);
    struct Inner;

    /// Checks what a DOT reader needs: one `digraph` block, braces and
    /// quotes balanced outside strings, every statement ended, and every
    /// node an edge names declared. Returns the declared nodes and the
    /// edge lines.
    fn check_syntax(dot: &str) -> (BTreeSet<String>, Vec<String>) {
        assert!(dot.starts_with("digraph archetypes {\n"), "{dot}");
        assert!(dot.ends_with("}\n"), "{dot}");
        let (mut depth, mut in_string, mut escaped) = (0i32, false, false);
        for c in dot.chars() {
            match (in_string, escaped, c) {
                (true, true, _) => escaped = false,
                (true, false, '\\') => escaped = true,
                (true, false, '"') => in_string = false,
                (false, _, '"') => in_string = true,
                (false, _, '{') => depth += 1,
                (false, _, '}') => {
                    depth -= 1;
                    assert!(depth >= 0, "{dot}");
                }
                _ => {}
            }
        }
        assert!(!in_string && depth == 0, "{dot}");

        let body: Vec<&str> = dot.lines().skip(1).take_while(|l| *l != "}").collect();
        assert_eq!(body.len() + 2, dot.lines().count(), "{dot}");
        let mut nodes = BTreeSet::new();
        let mut edges = Vec::new();
        for line in body {
            assert!(line.ends_with(';'), "{line}");
            let statement = line.trim_start();
            let head = statement.split(" [").next().unwrap();
            if let Some((from, to)) = head.split_once(" -> ") {
                edges.push((from.to_owned(), to.to_owned(), statement.to_owned()));
            } else if head.starts_with('a') {
                assert!(nodes.insert(head.to_owned()), "node {head} declared twice");
            }
        }
        for (from, to, _) in &edges {
            assert!(
                nodes.contains(from) && nodes.contains(to),
                "{from} -> {to} undeclared\n{dot}"
            );
            assert_ne!(from, to, "self-loops are left out");
        }
        (nodes, edges.into_iter().map(|(_, _, s)| s).collect())
    }

    #[test]
    fn dot_shows_archetypes_and_labelled_edges() {
        let mut world = World::new();
        let e = world.spawn(Pos).id(); // a0 -> a1
        world.entity_mut(e).insert((Vel, Wrapper(Inner))); // a1 -> a2
        world.entity_mut(e).insert(Pos); // a2 -> a2, left out
        world.entity_mut(e).remove::<Vel>(); // a2 -> a3
        world.entity_mut(e).remove::<Vel>(); // a3 -> a3, left out
        world.entity_mut(e).insert(Stunned); // a3 -> a4
        assert!(world.entity_mut(e).take::<Stunned>().is_some()); // a4 -> a3
        let other = world.spawn((Pos, Vel)).id(); // a0 -> a5
        world.entity_mut(other).despawn();

        let dot = world.archetype_graph_dot();
        let (nodes, edges) = check_syntax(&dot);
        assert_eq!(nodes.len(), 6, "{dot}");
        assert_eq!(
            edges,
            [
                r#"a0 -> a1 [label="+Pos"];"#,
                r#"a0 -> a5 [label="+Pos, Vel"];"#,
                r#"a1 -> a2 [label="+Vel, Wrapper<Inner>"];"#,
                r#"a2 -> a3 [label="-Vel", style=dashed];"#,
                r#"a3 -> a4 [label="+Stunned(sparse)"];"#,
                r#"a4 -> a3 [label="-Stunned(sparse) (take)", style=dashed];"#,
            ],
            "{dot}"
        );
        assert!(
            dot.contains(
                r##"a0 [label="#0 (no components)\n0 entities", color=gray, fontcolor=gray];"##
            ),
            "{dot}"
        );
        assert!(
            dot.contains(r##"a3 [label="#3 Pos, Wrapper<Inner>\n1 entity"];"##),
            "{dot}"
        );
        assert!(
            dot.contains(r##"a5 [label="#5 Pos, Vel\n0 entities", color=gray"##),
            "{dot}"
        );
    }

    #[test]
    fn insert_edge_names_the_required_components_it_adds() {
        #[derive(Component, Default)]
        struct Mass;
        #[derive(Component)]
        #[require(Mass)]
        struct Body;
        let mut world = World::new();
        let e = world.spawn(Pos).id();
        world.entity_mut(e).insert(Body);
        let (_, edges) = check_syntax(&world.archetype_graph_dot());
        assert_eq!(
            edges,
            [
                r#"a0 -> a1 [label="+Pos"];"#,
                r#"a1 -> a2 [label="+Body (+Mass required)"];"#,
            ]
        );
    }

    #[test]
    fn take_edge_already_shown_by_a_remove_edge_is_not_repeated() {
        let mut world = World::new();
        let a = world.spawn((Pos, Vel)).id();
        let b = world.spawn((Pos, Vel)).id();
        world.entity_mut(a).remove::<Vel>();
        world.entity_mut(b).take::<Vel>();
        let (_, edges) = check_syntax(&world.archetype_graph_dot());
        assert_eq!(
            edges,
            [
                r#"a0 -> a1 [label="+Pos, Vel"];"#,
                r#"a1 -> a2 [label="-Vel", style=dashed];"#,
            ]
        );
    }

    #[test]
    fn dot_labels_escape_quotes_backslashes_and_newlines() {
        assert_eq!(dot_escape(r#"a "b" \c"#), r#"a \"b\" \\c"#);
        assert_eq!(dot_escape("two\nlines\r"), r"two\nlines");
        let mut world = World::new();
        // SAFETY: no drop function; the values are plain bytes.
        let descriptor = unsafe {
            crate::component::ComponentDescriptor::new_with_layout(
                "odd \"name\" \\ here",
                StorageType::Table,
                std::alloc::Layout::new::<u8>(),
                None,
            )
        };
        let id = world.register_component_with_descriptor(descriptor);
        let e = world.spawn(Pos).id();
        crate::ptr::OwningPtr::make(7u8, |value| {
            // SAFETY: `value` is a valid `u8`, the component's layout.
            unsafe {
                world.entity_mut(e).insert_by_id(id, value);
            }
        });
        let dot = world.archetype_graph_dot();
        check_syntax(&dot);
        assert!(
            dot.contains(r#"#2 odd \"name\" \\ here, Pos\n1 entity"#),
            "{dot}"
        );
        assert!(
            dot.contains(r#"a1 -> a2 [label="+odd \"name\" \\ here"];"#),
            "{dot}"
        );
    }
}
