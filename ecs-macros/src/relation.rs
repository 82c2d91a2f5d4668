//! `#[derive(Relation)]`: the `Relation` impl, its flavour read from
//! `#[relation(exclusive, symmetric, allow_self)]`.

use proc_macro2::TokenStream;
use quote::quote;
use syn::{Attribute, DeriveInput};

use crate::attr::{args_of, flag, unknown_key, SetOnce};
use crate::errors::Errors;
use crate::marker::MarkerInput;

/// The flavour `#[relation(..)]` asks for.
#[derive(Default)]
struct Flavour {
    exclusive: bool,
    symmetric: bool,
    allow_self: bool,
}

impl Flavour {
    /// The keys `#[relation(..)]` knows.
    const KEYS: &'static [&'static str] = &["exclusive", "symmetric", "allow_self"];

    /// Reads every `#[relation(..)]` in `attrs`; a key given twice or
    /// unknown is recorded in `errors`.
    fn parse(attrs: &[Attribute], errors: &mut Errors) -> Self {
        let mut keys: [SetOnce<()>; 3] = Default::default();
        for meta in args_of(attrs, "relation", errors) {
            let key = meta.path();
            let Some(index) = Self::KEYS.iter().position(|known| key.is_ident(known)) else {
                errors.push(unknown_key("relation", key, Self::KEYS));
                continue;
            };
            let usage = format!("#[relation({})]", Self::KEYS[index]);
            if errors.take(flag(&meta, &usage)).is_some() {
                keys[index].set(key, (), errors);
            }
        }
        let [exclusive, symmetric, allow_self] = keys.map(|key| key.get().is_some());
        Self {
            exclusive,
            symmetric,
            allow_self,
        }
    }
}

/// Expands `#[derive(Relation)]` on `input`.
pub(crate) fn derive(input: &DeriveInput) -> syn::Result<TokenStream> {
    let mut errors = Errors::default();
    let flavour = Flavour::parse(&input.attrs, &mut errors);
    let marker = errors.take(MarkerInput::parse(input, "Relation"));
    errors.check()?;
    let marker = marker.expect("no error was reported, so the input parsed");
    let Flavour {
        exclusive,
        symmetric,
        allow_self,
    } = flavour;
    Ok(marker.generate_with(quote!(relation::Relation), |_| {
        quote! {
            const EXCLUSIVE: bool = #exclusive;
            const SYMMETRIC: bool = #symmetric;
            const ALLOW_SELF: bool = #allow_self;
        }
    }))
}

#[cfg(test)]
mod tests {
    use syn::parse_quote;

    use super::*;
    use crate::test_support::{expand, messages};

    #[test]
    fn flavours_become_constants() {
        let out = expand(
            derive,
            parse_quote!(
                #[relation(exclusive, allow_self)]
                struct Likes;
            ),
        )
        .unwrap();
        assert!(
            out.contains(":: ecs :: relation :: Relation for Likes"),
            "{out}"
        );
        assert!(out.contains("const EXCLUSIVE : bool = true ;"), "{out}");
        assert!(out.contains("const SYMMETRIC : bool = false ;"), "{out}");
        assert!(out.contains("const ALLOW_SELF : bool = true ;"), "{out}");
    }

    #[test]
    fn unknown_duplicate_and_valued_keys_are_all_reported() {
        let errors = messages(
            derive,
            parse_quote!(
                #[relation(symetric, exclusive, exclusive, allow_self = true)]
                struct Likes;
            ),
        );
        assert_eq!(
            errors,
            [
                "unknown key `symetric` in `#[relation(..)]`: expected one of `exclusive`, \
                 `symmetric`, `allow_self`",
                "duplicate key `exclusive`",
                "`allow_self` takes no value: write `#[relation(allow_self)]`",
            ]
        );
    }

    #[test]
    fn lifetimes_are_rejected() {
        let errors = messages(
            derive,
            parse_quote!(
                struct Likes<'a>(&'a ());
            ),
        );
        assert_eq!(
            errors,
            ["`Relation` types must be 'static: remove the lifetime parameter `'a`"]
        );
    }
}
