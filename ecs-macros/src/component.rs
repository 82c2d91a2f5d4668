//! `#[derive(Component)]`: read the type and its `#[component(..)]`
//! attribute into a [`ComponentInput`], then generate the impl.

use proc_macro2::{Ident, Span, TokenStream};
use quote::quote;
use syn::{Attribute, Data, DeriveInput, Generics, LitStr, Path};

use crate::attr::{self, EcsAttr, SetOnce};
use crate::errors::Errors;
use crate::generics::reject_lifetimes;

/// Expands `#[derive(Component)]` on `input`.
pub(crate) fn derive(input: &DeriveInput) -> syn::Result<TokenStream> {
    Ok(ComponentInput::parse(input)?.generate())
}

/// Everything the generated impl depends on.
struct ComponentInput<'a> {
    ident: &'a Ident,
    generics: &'a Generics,
    krate: Path,
    attr: ComponentAttr,
}

impl<'a> ComponentInput<'a> {
    /// Reads and validates `input`, reporting every problem at once.
    fn parse(input: &'a DeriveInput) -> syn::Result<Self> {
        let mut errors = Errors::default();
        let EcsAttr { krate } = EcsAttr::parse(&input.attrs, &mut errors);
        let attr = ComponentAttr::parse(&input.attrs, &mut errors);
        reject_lifetimes(&input.generics, "Component", &mut errors);
        for attrs in inner_attrs(&input.data) {
            attr::reject_misplaced(
                attrs,
                "component",
                "it configures the whole type, so put it above the type",
                &mut errors,
            );
        }
        errors.finish()?;
        Ok(Self {
            ident: &input.ident,
            generics: &input.generics,
            krate,
            attr,
        })
    }

    fn generate(&self) -> TokenStream {
        let Self {
            ident,
            generics,
            krate,
            attr,
        } = self;
        let (impl_generics, ty_generics, where_clause) = generics.split_for_impl();
        let storage = attr.storage.variant();
        // The trait's supertraits (`Send + Sync + 'static`) are checked by the
        // compiler against the user's own bounds: adding them here would
        // hide a missing bound instead of reporting it.
        quote! {
            #[automatically_derived]
            impl #impl_generics #krate::component::Component for #ident #ty_generics #where_clause {
                const STORAGE_TYPE: #krate::component::StorageType =
                    #krate::component::StorageType::#storage;
            }
        }
    }
}

/// The attributes of every variant and field, where `#[component(..)]`
/// means nothing.
fn inner_attrs(data: &Data) -> Vec<&[Attribute]> {
    let mut attrs = Vec::new();
    match data {
        Data::Struct(data) => attrs.extend(data.fields.iter().map(|f| f.attrs.as_slice())),
        Data::Enum(data) => {
            for variant in &data.variants {
                attrs.push(variant.attrs.as_slice());
                attrs.extend(variant.fields.iter().map(|f| f.attrs.as_slice()));
            }
        }
        Data::Union(data) => attrs.extend(data.fields.named.iter().map(|f| f.attrs.as_slice())),
    }
    attrs
}

/// `#[component(..)]` on the type.
///
/// Each key is one arm in [`ComponentAttr::parse`] and one name in
/// [`ComponentAttr::KEYS`].
#[derive(Default)]
struct ComponentAttr {
    storage: Storage,
}

impl ComponentAttr {
    /// The keys `#[component(..)]` knows, for the unknown-key message.
    const KEYS: &'static [&'static str] = &["storage"];

    fn parse(attrs: &[Attribute], errors: &mut Errors) -> Self {
        let mut storage = SetOnce::default();
        for meta in attr::args_of(attrs, "component", errors) {
            let key = meta.path();
            if key.is_ident("storage") {
                let value =
                    attr::string_value(&meta, Storage::USAGE).and_then(|lit| Storage::parse(&lit));
                if let Some(value) = errors.take(value) {
                    storage.set(key, value, errors);
                }
            } else {
                errors.push(attr::unknown_key("component", key, Self::KEYS));
            }
        }
        Self {
            storage: storage.get().unwrap_or_default(),
        }
    }
}

/// The value of `storage = ".."`, mirroring `StorageType` in the runtime.
#[derive(Clone, Copy, Default)]
enum Storage {
    #[default]
    Table,
    SparseSet,
}

impl Storage {
    const USAGE: &'static str = "storage = \"Table\"` or `storage = \"SparseSet\"";

    fn parse(lit: &LitStr) -> syn::Result<Self> {
        match lit.value().as_str() {
            "Table" => Ok(Self::Table),
            "SparseSet" => Ok(Self::SparseSet),
            other => Err(syn::Error::new_spanned(
                lit,
                format!("unknown storage `{other}`: expected `\"Table\"` or `\"SparseSet\"`"),
            )),
        }
    }

    /// The `StorageType` variant to name in generated code.
    fn variant(self) -> Ident {
        let name = match self {
            Self::Table => "Table",
            Self::SparseSet => "SparseSet",
        };
        Ident::new(name, Span::call_site())
    }
}

#[cfg(test)]
mod tests {
    use syn::parse_quote;

    use super::*;

    fn expand(input: DeriveInput) -> syn::Result<String> {
        derive(&input).map(|tokens| tokens.to_string())
    }

    fn messages(input: DeriveInput) -> Vec<String> {
        let error = expand(input).unwrap_err();
        error.into_iter().map(|error| error.to_string()).collect()
    }

    #[test]
    fn storage_defaults_to_table() {
        let out = expand(parse_quote!(
            struct S;
        ))
        .unwrap();
        assert!(
            out.contains(":: ecs :: component :: StorageType :: Table"),
            "{out}"
        );
    }

    #[test]
    fn storage_attribute_picks_the_variant() {
        let out = expand(parse_quote!(
            #[component(storage = "SparseSet")]
            enum E {
                A,
            }
        ))
        .unwrap();
        assert!(out.contains("StorageType :: SparseSet"), "{out}");
    }

    #[test]
    fn crate_path_replaces_the_root() {
        let out = expand(parse_quote!(
            #[ecs(crate = ecs_core)]
            struct S;
        ))
        .unwrap();
        assert!(
            out.contains("impl ecs_core :: component :: Component for S"),
            "{out}"
        );
    }

    #[test]
    fn generics_and_where_clause_are_kept() {
        let out = expand(parse_quote!(
            struct S<T: Send, const N: usize>([T; N])
            where
                T: Sync + 'static;
        ))
        .unwrap();
        assert!(out.contains("impl < T : Send , const N : usize >"), "{out}");
        assert!(
            out.contains("for S < T , N > where T : Sync + 'static"),
            "{out}"
        );
    }

    #[test]
    fn every_problem_is_reported_at_once() {
        let input = parse_quote! {
            #[component(storage = "Tabel", storage = "Table", on_add = f)]
            struct S<'a, 'b> {
                #[component(storage = "Table")]
                name: &'a &'b str,
            }
        };
        assert_eq!(
            messages(input),
            [
                "unknown storage `Tabel`: expected `\"Table\"` or `\"SparseSet\"`",
                "unknown key `on_add` in `#[component(..)]`: expected `storage`",
                "`Component` types must be 'static: remove the lifetime parameter `'a`",
                "`Component` types must be 'static: remove the lifetime parameter `'b`",
                "`#[component(..)]` is not allowed here: it configures the whole type, so put it above the type",
            ]
        );
    }

    #[test]
    fn duplicate_storage_is_an_error() {
        let input = parse_quote!(
            #[component(storage = "Table")]
            #[component(storage = "Table")]
            struct S;
        );
        assert_eq!(messages(input), ["duplicate key `storage`"]);
    }

    #[test]
    fn storage_needs_a_string() {
        let input = parse_quote!(
            #[component(storage = Table)]
            struct S;
        );
        assert_eq!(
            messages(input),
            ["expected a string literal: `storage = \"Table\"` or `storage = \"SparseSet\"`"]
        );
    }
}
