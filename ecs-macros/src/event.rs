//! `#[derive(Event)]`: the marker impl that lets a type be triggered and
//! observed.

use proc_macro2::{Ident, TokenStream};
use quote::quote;
use syn::{DeriveInput, Generics, Path};

use crate::attr::EcsAttr;
use crate::errors::Errors;
use crate::generics::reject_lifetimes;

/// Expands `#[derive(Event)]` on `input`.
pub(crate) fn derive(input: &DeriveInput) -> syn::Result<TokenStream> {
    Ok(EventInput::parse(input)?.generate())
}

/// Everything the generated impl depends on.
struct EventInput<'a> {
    ident: &'a Ident,
    generics: &'a Generics,
    krate: Path,
}

impl<'a> EventInput<'a> {
    /// Reads and validates `input`, reporting every problem at once.
    ///
    /// Structs, enums and unions all derive: an event is any
    /// `Send + Sync + 'static` value, and a union is one when its fields
    /// are.
    fn parse(input: &'a DeriveInput) -> syn::Result<Self> {
        let mut errors = Errors::default();
        let EcsAttr { krate } = EcsAttr::parse(&input.attrs, &mut errors);
        reject_lifetimes(&input.generics, "Event", &mut errors);
        errors.finish()?;
        Ok(Self {
            ident: &input.ident,
            generics: &input.generics,
            krate,
        })
    }

    fn generate(&self) -> TokenStream {
        let Self {
            ident,
            generics,
            krate,
        } = self;
        let (impl_generics, ty_generics, where_clause) = generics.split_for_impl();
        // As for `Component`, the supertraits are left for the compiler to
        // check against the user's bounds, so a missing one is reported.
        quote! {
            #[automatically_derived]
            impl #impl_generics #krate::observer::Event for #ident #ty_generics #where_clause {}
        }
    }
}

#[cfg(test)]
mod tests {
    use syn::parse_quote;

    use super::*;

    #[test]
    fn marker_impl_keeps_generics() {
        let input = parse_quote!(
            enum E<T: Send + Sync + 'static, const N: usize>
            where
                T: Clone,
            {
                A([T; N]),
                B,
            }
        );
        let out = derive(&input).unwrap().to_string();
        assert_eq!(
            out,
            "# [automatically_derived] impl < T : Send + Sync + 'static , const N : usize > \
             :: ecs :: observer :: Event for E < T , N > where T : Clone , { }"
        );
    }

    #[test]
    fn crate_path_replaces_the_root() {
        let input = parse_quote!(
            #[ecs(crate = ecs_core)]
            union U {
                a: u32,
                b: f32,
            }
        );
        let out = derive(&input).unwrap().to_string();
        assert!(
            out.contains("impl ecs_core :: observer :: Event for U"),
            "{out}"
        );
    }

    #[test]
    fn lifetimes_are_rejected() {
        let input = parse_quote!(
            struct E<'a>(&'a str);
        );
        let error = derive(&input).unwrap_err();
        assert_eq!(
            error.to_string(),
            "`Event` types must be 'static: remove the lifetime parameter `'a`"
        );
    }
}
