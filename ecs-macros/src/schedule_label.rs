//! `#[derive(ScheduleLabel)]` and `#[derive(SystemSet)]`: `dyn_clone`
//! through `Clone`, for a type that is also `Eq + Hash + Debug`.

use proc_macro2::{Ident, TokenStream};
use quote::quote;
use syn::{Data, DeriveInput, Generics, Path};

use crate::attr::EcsAttr;
use crate::errors::Errors;
use crate::generics::reject_lifetimes;

/// Expands `#[derive(ScheduleLabel)]` on `input`.
pub(crate) fn derive(input: &DeriveInput) -> syn::Result<TokenStream> {
    Ok(LabelInput::parse(input, "ScheduleLabel")?.generate())
}

/// Expands `#[derive(SystemSet)]` on `input`.
pub(crate) fn derive_system_set(input: &DeriveInput) -> syn::Result<TokenStream> {
    Ok(LabelInput::parse(input, "SystemSet")?.generate())
}

/// Everything the label impl depends on.
struct LabelInput<'a> {
    ident: &'a Ident,
    generics: &'a Generics,
    krate: Path,
    /// The label trait, in `krate::schedule`.
    label: Ident,
}

impl<'a> LabelInput<'a> {
    /// Reads and validates `input`: a struct or enum without lifetime
    /// parameters (a label is `'static`).
    fn parse(input: &'a DeriveInput, label: &str) -> syn::Result<Self> {
        let mut errors = Errors::default();
        let EcsAttr { krate } = EcsAttr::parse(&input.attrs, &mut errors);
        if let Data::Union(data) = &input.data {
            errors.push_spanned(
                data.union_token,
                format!("`{label}` cannot be derived for a union: use a struct or an enum"),
            );
        }
        reject_lifetimes(&input.generics, label, &mut errors);
        errors.check()?;
        Ok(Self {
            ident: &input.ident,
            generics: &input.generics,
            krate,
            label: Ident::new(label, proc_macro2::Span::call_site()),
        })
    }

    /// The impl, bounded by what a label needs: a generic label is a label
    /// wherever its parameters make it one, and a concrete type missing a
    /// trait gets an error at the derive naming that trait.
    fn generate(&self) -> TokenStream {
        let Self {
            ident,
            generics,
            krate,
            label,
        } = self;
        let (impl_generics, ty_generics, _) = generics.split_for_impl();
        let user = generics
            .where_clause
            .iter()
            .flat_map(|where_clause| &where_clause.predicates);
        quote! {
            #[automatically_derived]
            impl #impl_generics #krate::schedule::#label for #ident #ty_generics
            where
                #(#user,)*
                Self: ::core::clone::Clone
                    + ::core::cmp::Eq
                    + ::core::hash::Hash
                    + ::core::fmt::Debug
                    + ::core::marker::Send
                    + ::core::marker::Sync
                    + 'static
            {
                fn dyn_clone(&self) -> ::std::boxed::Box<dyn #krate::schedule::#label> {
                    ::std::boxed::Box::new(::core::clone::Clone::clone(self))
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use syn::parse_quote;

    use super::*;

    #[test]
    fn unit_struct() {
        let input = parse_quote!(
            struct Update;
        );
        let out = derive(&input).unwrap().to_string();
        assert!(
            out.contains("impl :: ecs :: schedule :: ScheduleLabel for Update where Self :"),
            "{out}"
        );
        assert!(
            out.contains("Box :: new (:: core :: clone :: Clone :: clone (self))"),
            "{out}"
        );
    }

    #[test]
    fn system_set_names_its_own_trait() {
        let input = parse_quote!(
            enum Physics {
                Forces,
                Collisions,
            }
        );
        let out = derive_system_set(&input).unwrap().to_string();
        assert!(
            out.contains("impl :: ecs :: schedule :: SystemSet for Physics where Self :"),
            "{out}"
        );
        assert!(
            out.contains("Box < dyn :: ecs :: schedule :: SystemSet >"),
            "{out}"
        );
        assert!(!out.contains("ScheduleLabel"), "{out}");
    }

    #[test]
    fn generics_and_where_clause_are_kept() {
        let input = parse_quote!(
            enum Phase<T: Copy>
            where
                T: Default,
            {
                A(T),
                B,
            }
        );
        let out = derive(&input).unwrap().to_string();
        assert!(
            out.contains(
                "impl < T : Copy > :: ecs :: schedule :: ScheduleLabel for Phase < T > \
                 where T : Default , Self :"
            ),
            "{out}"
        );
    }

    #[test]
    fn crate_path_replaces_the_root() {
        let input = parse_quote!(
            #[ecs(crate = ecs_core)]
            struct Update;
        );
        let out = derive(&input).unwrap().to_string();
        assert!(
            out.contains("impl ecs_core :: schedule :: ScheduleLabel for Update"),
            "{out}"
        );
        assert!(!out.contains(":: ecs ::"), "{out}");
    }

    #[test]
    fn unions_and_lifetimes_are_reported_together() {
        let input = parse_quote!(
            union U<'a> {
                a: &'a u8,
            }
        );
        let messages: Vec<String> = derive(&input)
            .unwrap_err()
            .into_iter()
            .map(|error| error.to_string())
            .collect();
        assert_eq!(
            messages,
            [
                "`ScheduleLabel` cannot be derived for a union: use a struct or an enum",
                "`ScheduleLabel` types must be 'static: remove the lifetime parameter `'a`",
            ]
        );
    }
}
