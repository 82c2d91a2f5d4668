//! `#[derive(Resource)]`: the trait impl, with `#[resource(snapshot)]`
//! (or `snapshot = hash`) opting the type into every world's snapshots.

use proc_macro2::TokenStream;
use quote::quote;
use syn::{Attribute, DeriveInput};

use crate::attr::{self, SetOnce};
use crate::errors::Errors;
use crate::marker::MarkerInput;
use crate::snapshot::SnapshotAttr;

/// Expands `#[derive(Resource)]` on `input`.
pub(crate) fn derive(input: &DeriveInput) -> syn::Result<TokenStream> {
    let mut errors = Errors::default();
    let snapshot = parse_attr(&input.attrs, &mut errors);
    let marker = errors.take(MarkerInput::parse(input, "Resource"));
    errors.check()?;
    let marker = marker.expect("no error, so the marker input parsed");
    Ok(marker.generate_with(quote!(resource::Resource), |krate| {
        snapshot.map(|s| s.generate(krate)).unwrap_or_default()
    }))
}

/// Reads every `#[resource(..)]`: `snapshot` is its only key.
fn parse_attr(attrs: &[Attribute], errors: &mut Errors) -> Option<SnapshotAttr> {
    let mut snapshot = SetOnce::default();
    for meta in attr::args_of(attrs, "resource", errors) {
        let key = meta.path();
        if key.is_ident("snapshot") {
            if let Some(value) = errors.take(SnapshotAttr::parse(&meta)) {
                snapshot.set(key, value, errors);
            }
        } else {
            errors.push(attr::unknown_key("resource", key, &["snapshot"]));
        }
    }
    snapshot.get()
}

#[cfg(test)]
mod tests {
    use syn::parse_quote;

    use super::*;

    #[test]
    fn marker_impl_keeps_generics() {
        let input = parse_quote!(
            struct R<T: Send + Sync + 'static>(T);
        );
        let out = derive(&input).unwrap().to_string();
        assert!(
            out.contains(
                "impl < T : Send + Sync + 'static > :: ecs :: resource :: Resource for R < T > where"
            ),
            "{out}"
        );
    }

    #[test]
    fn unbounded_parameters_get_the_supertraits_on_self() {
        let input = parse_quote!(
            struct R<T>(T)
            where
                T: Clone;
        );
        let out = derive(&input).unwrap().to_string();
        assert!(
            out.contains(
                "for R < T > where T : Clone , Self : :: core :: marker :: Send + \
                 :: core :: marker :: Sync + 'static {"
            ),
            "{out}"
        );
    }

    #[test]
    fn snapshot_key_writes_the_behavior() {
        let out = derive(&parse_quote!(
            #[resource(snapshot)]
            struct R;
        ))
        .unwrap()
        .to_string();
        assert!(
            out.contains("fn snapshot_behavior () -> :: ecs :: component :: SnapshotBehavior {")
                && out.contains(
                    "let fallback = :: ecs :: component :: SnapshotBehavior :: cloned :: < Self > () ;"
                )
                && out.contains(
                    "(&& :: ecs :: component :: __snapshot_probe :: Probe :: < Self > :: new ()) \
                     . snapshot_or (fallback)"
                ),
            "{out}"
        );
        let out = derive(&parse_quote!(
            #[resource(snapshot = hash)]
            struct R;
        ))
        .unwrap()
        .to_string();
        assert!(
            out.contains("SnapshotBehavior :: hashed :: < Self > ()"),
            "{out}"
        );
        let out = derive(&parse_quote!(
            struct R;
        ))
        .unwrap()
        .to_string();
        assert!(!out.contains("snapshot_behavior"), "{out}");
    }

    #[test]
    fn resource_attribute_problems_are_reported_together() {
        let input = parse_quote!(
            #[resource(snapshot = fast, snapshot(x), rollback)]
            #[resource(snapshot, snapshot)]
            struct R<'a>(&'a str);
        );
        let error = derive(&input).unwrap_err();
        let messages: Vec<String> = error.into_iter().map(|e| e.to_string()).collect();
        assert_eq!(
            messages,
            [
                "expected `snapshot` or `snapshot = hash`",
                "expected `snapshot` or `snapshot = hash`",
                "unknown key `rollback` in `#[resource(..)]`: expected `snapshot`",
                "duplicate key `snapshot`",
                "`Resource` types must be 'static: remove the lifetime parameter `'a`",
            ]
        );
    }

    #[test]
    fn lifetimes_are_rejected() {
        let input = parse_quote!(
            struct R<'a>(&'a str);
        );
        let error = derive(&input).unwrap_err();
        assert_eq!(
            error.to_string(),
            "`Resource` types must be 'static: remove the lifetime parameter `'a`"
        );
    }
}
