//! Reading helper attributes: the shared `#[ecs(crate = path)]` container
//! attribute, and the small parsers every derive's own attribute
//! (`#[component(..)]`, `#[bundle(..)]`) is built from.
//!
//! An attribute's arguments are read as a comma-separated list of
//! [`Meta`] (`key`, `key = value`, `key(..)`), and each derive matches the
//! keys it knows one by one. Supporting a new key is one more match arm
//! that calls [`flag`], [`string_value`] or [`path_value`]; a key no arm
//! matches is reported by [`unknown_key`], and every problem is collected
//! in [`Errors`] so the user sees all of them at once.

use proc_macro2::Span;
use quote::ToTokens;
use syn::punctuated::Punctuated;
use syn::{Attribute, Expr, ExprLit, ExprPath, Lit, LitStr, Meta, Path, Token};

use crate::errors::Errors;

/// The arguments of `#[name(arg, arg, ..)]`.
///
/// `#[name]` and `#[name = value]` are errors: every helper attribute here
/// takes a parenthesised list.
pub(crate) fn parse_args(attr: &Attribute) -> syn::Result<Punctuated<Meta, Token![,]>> {
    attr.meta
        .require_list()?
        .parse_args_with(Punctuated::parse_terminated)
}

/// The arguments of every `#[name(..)]` in `attrs`, in order; an attribute
/// that does not parse is recorded in `errors` and skipped.
pub(crate) fn args_of(attrs: &[Attribute], name: &str, errors: &mut Errors) -> Vec<Meta> {
    attrs
        .iter()
        .filter(|attr| attr.path().is_ident(name))
        .filter_map(|attr| errors.take(parse_args(attr)))
        .flatten()
        .collect()
}

/// Records an error for each `#[name(..)]` in `attrs`: the attribute is
/// allowed by the derive but means nothing at this position.
pub(crate) fn reject_misplaced(attrs: &[Attribute], name: &str, hint: &str, errors: &mut Errors) {
    for attr in attrs.iter().filter(|attr| attr.path().is_ident(name)) {
        errors.push_spanned(attr, format!("`#[{name}(..)]` is not allowed here: {hint}"));
    }
}

/// A key as the user wrote it, for messages.
pub(crate) fn key_name(path: &Path) -> String {
    path.to_token_stream().to_string().replace(' ', "")
}

/// The error for a key that `#[attr(..)]` does not know, at the key.
pub(crate) fn unknown_key(attr: &str, key: &Path, expected: &[&str]) -> syn::Error {
    let expected = match expected {
        [] => String::from("it takes no keys"),
        [only] => format!("expected `{only}`"),
        many => {
            let quoted: Vec<String> = many.iter().map(|key| format!("`{key}`")).collect();
            format!("expected one of {}", quoted.join(", "))
        }
    };
    syn::Error::new_spanned(
        key,
        format!(
            "unknown key `{}` in `#[{attr}(..)]`: {expected}",
            key_name(key)
        ),
    )
}

/// A bare `key`, as in `#[bundle(ignore)]`.
pub(crate) fn flag(meta: &Meta, usage: &str) -> syn::Result<()> {
    match meta {
        Meta::Path(_) => Ok(()),
        _ => Err(syn::Error::new_spanned(
            meta,
            format!(
                "`{}` takes no value: write `{usage}`",
                key_name(meta.path())
            ),
        )),
    }
}

/// The string of `key = "value"`.
pub(crate) fn string_value(meta: &Meta, usage: &str) -> syn::Result<LitStr> {
    match value_of(meta, usage)? {
        Expr::Lit(ExprLit {
            lit: Lit::Str(lit),
            attrs,
        }) if attrs.is_empty() => Ok(lit.clone()),
        other => Err(syn::Error::new_spanned(
            other,
            format!("expected a string literal: `{usage}`"),
        )),
    }
}

/// The path of `key = path` (or `key = "path"`, as serde spells it).
pub(crate) fn path_value(meta: &Meta, usage: &str) -> syn::Result<Path> {
    match value_of(meta, usage)? {
        Expr::Path(ExprPath {
            attrs,
            qself: None,
            path,
        }) if attrs.is_empty() => Ok(path.clone()),
        Expr::Lit(ExprLit {
            lit: Lit::Str(lit),
            attrs,
        }) if attrs.is_empty() => lit.parse(),
        other => Err(syn::Error::new_spanned(
            other,
            format!("expected a path: `{usage}`"),
        )),
    }
}

/// The value of `key = value`; an error naming the expected form otherwise.
fn value_of<'m>(meta: &'m Meta, usage: &str) -> syn::Result<&'m Expr> {
    match meta {
        Meta::NameValue(name_value) => Ok(&name_value.value),
        _ => Err(syn::Error::new_spanned(meta, format!("expected `{usage}`"))),
    }
}

/// A key's value that may be given at most once.
pub(crate) struct SetOnce<T> {
    value: Option<T>,
}

impl<T> Default for SetOnce<T> {
    fn default() -> Self {
        Self { value: None }
    }
}

impl<T> SetOnce<T> {
    /// Stores `value` for `key`, or records an error at `key` when a value
    /// was already given.
    pub(crate) fn set(&mut self, key: &Path, value: T, errors: &mut Errors) {
        if self.value.is_some() {
            errors.push_spanned(key, format!("duplicate key `{}`", key_name(key)));
        } else {
            self.value = Some(value);
        }
    }

    /// The value given, if any.
    pub(crate) fn get(self) -> Option<T> {
        self.value
    }
}

/// The container attribute every derive accepts: `#[ecs(crate = path)]`.
pub(crate) struct EcsAttr {
    /// The path generated code reaches the runtime through: `::ecs` unless
    /// `crate = path` says otherwise (`ecs_core` inside the runtime itself,
    /// or a renamed dependency).
    pub(crate) krate: Path,
}

impl EcsAttr {
    /// The keys `#[ecs(..)]` knows.
    const KEYS: &'static [&'static str] = &["crate"];

    /// Reads every `#[ecs(..)]` in `attrs`.
    pub(crate) fn parse(attrs: &[Attribute], errors: &mut Errors) -> Self {
        let mut krate = SetOnce::default();
        for meta in args_of(attrs, "ecs", errors) {
            let key = meta.path();
            if key.is_ident("crate") {
                if let Some(path) = errors.take(path_value(&meta, "crate = path::to::ecs")) {
                    krate.set(key, path, errors);
                }
            } else {
                errors.push(unknown_key("ecs", key, Self::KEYS));
            }
        }
        Self {
            krate: krate.get().unwrap_or_else(default_crate_path),
        }
    }
}

/// `::ecs`, the facade crate users depend on.
fn default_crate_path() -> Path {
    let mut path = Path::from(syn::Ident::new("ecs", Span::call_site()));
    path.leading_colon = Some(Default::default());
    path
}

#[cfg(test)]
mod tests {
    use quote::ToTokens;
    use syn::{parse_quote, DeriveInput};

    use super::*;
    use crate::test_support::messages_of;

    fn krate(input: DeriveInput) -> syn::Result<String> {
        let mut errors = Errors::default();
        let attr = EcsAttr::parse(&input.attrs, &mut errors);
        errors.check()?;
        Ok(attr.krate.to_token_stream().to_string().replace(' ', ""))
    }

    #[test]
    fn crate_path_defaults_to_the_facade() {
        assert_eq!(
            krate(parse_quote!(
                struct S;
            ))
            .unwrap(),
            "::ecs"
        );
    }

    #[test]
    fn crate_path_as_path_or_string() {
        let input = parse_quote!(
            #[ecs(crate = ecs_core)]
            struct S;
        );
        assert_eq!(krate(input).unwrap(), "ecs_core");
        let input = parse_quote!(
            #[ecs(crate = "::my::ecs")]
            struct S;
        );
        assert_eq!(krate(input).unwrap(), "::my::ecs");
    }

    #[test]
    fn every_problem_is_reported() {
        let input = parse_quote! {
            #[ecs(crate = ecs, crate = other, krate = ecs)]
            #[ecs(crate = 1)]
            struct S;
        };
        assert_eq!(
            messages_of(krate(input).unwrap_err()),
            [
                "duplicate key `crate`",
                "unknown key `krate` in `#[ecs(..)]`: expected `crate`",
                "expected a path: `crate = path::to::ecs`",
            ]
        );
    }

    #[test]
    fn attribute_without_arguments_is_an_error() {
        assert!(krate(parse_quote!(
            #[ecs]
            struct S;
        ))
        .is_err());
    }
}
