//! `#[derive(Component)]`: read the type, its `#[component(..)]` and
//! `#[require(..)]` attributes into a [`ComponentInput`], then generate the
//! impl.
//!
//! ```text
//! #[component(storage = "SparseSet", on_add = f)]  ─▶ const STORAGE_TYPE
//!                                                    fn register_component_hooks
//! #[require(Position, Velocity = Velocity(1.0))]   ─▶ fn register_required_components
//! ```
//!
//! A hook or requirement the user did not write generates nothing: the
//! trait's default methods register none.

pub(crate) mod clone;
mod relationship;
mod require;

use proc_macro2::{Ident, Span, TokenStream};
use quote::{quote, quote_spanned, ToTokens};
use syn::spanned::Spanned;
use syn::{Attribute, Data, DeriveInput, Expr, ExprCall, Generics, LitStr, Meta, Path};

use crate::attr::{self, EcsAttr, SetOnce};
use crate::bounds::where_self_is_send_sync_static;
use crate::errors::Errors;
use crate::generics::reject_lifetimes;
use crate::snapshot::SnapshotAttr;

use clone::MapEntitiesAttr;
use relationship::RelationshipEnd;
use require::Required;

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
    /// Every `#[require(..)]` entry, in the order written.
    required: Vec<Required>,
    /// `#[relationship(..)]` or `#[relationship_target(..)]`, if any.
    relationship: Option<RelationshipEnd>,
    input: &'a DeriveInput,
}

impl<'a> ComponentInput<'a> {
    /// Reads and validates `input`, reporting every problem at once.
    fn parse(input: &'a DeriveInput) -> syn::Result<Self> {
        let mut errors = Errors::default();
        let EcsAttr { krate } = EcsAttr::parse(&input.attrs, &mut errors);
        let attr = ComponentAttr::parse(&input.attrs, &mut errors);
        let required = require::parse(&input.attrs, &input.ident, &mut errors);
        let relationship = relationship::parse(input, &mut errors);
        reject_lifetimes(&input.generics, "Component", &mut errors);
        clone::check_clone_behavior(
            attr.clone_behavior.as_ref(),
            relationship.as_ref(),
            &mut errors,
        );
        if attr.immutable && matches!(relationship, Some(RelationshipEnd::Target { .. })) {
            errors.push(syn::Error::new_spanned(
                &input.ident,
                "`#[component(immutable)]` on a `#[relationship_target(..)]`: the relationship's \
                 hooks change the list in place, so a relationship target stays mutable \
                 (the `#[relationship(..)]` side is immutable already)",
            ));
        }
        for attrs in inner_attrs(&input.data) {
            clone::check_entities_attrs(attrs, &mut errors);
            attr::reject_misplaced(
                attrs,
                "component",
                "it configures the whole type, so put it above the type",
                &mut errors,
            );
            attr::reject_misplaced(
                attrs,
                "require",
                "it lists the components the whole type requires, so put it above the type",
                &mut errors,
            );
        }
        errors.check()?;
        Ok(Self {
            ident: &input.ident,
            generics: &input.generics,
            krate,
            attr,
            required,
            relationship,
            input,
        })
    }

    fn generate(&self) -> TokenStream {
        let Self {
            ident,
            generics,
            krate,
            attr,
            required,
            relationship,
            input,
        } = self;
        let (impl_generics, ty_generics, _) = generics.split_for_impl();
        let where_clause = where_self_is_send_sync_static(generics);
        let storage = attr.storage.variant();
        let own_hooks = relationship
            .as_ref()
            .map(|end| relationship::hooks(end, krate))
            .unwrap_or_default();
        let hooks = generate_hooks(&attr.hooks, &own_hooks, krate);
        let required = require::generate(required, krate);
        let relationship_impl = relationship
            .as_ref()
            .map(|end| relationship::generate_impl(end, input, krate));
        let clone_behavior = clone::generate_clone_behavior(
            attr.clone_behavior.as_ref(),
            relationship.as_ref(),
            krate,
        );
        let map_entities = clone::generate_map_entities(
            &input.data,
            attr.map_entities.as_ref(),
            relationship.as_ref(),
            krate,
        );
        let snapshot = attr.snapshot.as_ref().map(|s| s.generate(krate));
        let change_ticks = attr
            .no_change_ticks
            .then(|| quote! { const CHANGE_TICKS: bool = false; });
        // A relationship's source changes only by replacement, so that its
        // hooks keep the target's list exact.
        let immutable =
            attr.immutable || matches!(relationship, Some(RelationshipEnd::Source { .. }));
        let mutability = if immutable {
            quote! { #krate::component::Immutable }
        } else {
            quote! { #krate::component::Mutable }
        };
        // A relationship source names the check that both ends agree.
        let integrity = matches!(relationship, Some(RelationshipEnd::Source { .. })).then(|| {
            quote! {
                fn integrity_check() -> ::core::option::Option<#krate::component::IntegrityCheck> {
                    ::core::option::Option::Some(#krate::relationship::relationship_integrity::<Self>)
                }
            }
        });
        // Each end names the other: a snapshot restores both or neither.
        let partner = relationship.as_ref().map(|end| {
            let other = match end {
                RelationshipEnd::Source { target, .. } => target,
                RelationshipEnd::Target { relationship, .. } => relationship,
            };
            quote! {
                fn snapshot_partner() -> ::core::option::Option<::core::any::TypeId> {
                    ::core::option::Option::Some(::core::any::TypeId::of::<#other>())
                }
            }
        });
        quote! {
            #[automatically_derived]
            impl #impl_generics #krate::component::Component for #ident #ty_generics #where_clause {
                const STORAGE_TYPE: #krate::component::StorageType =
                    #krate::component::StorageType::#storage;
                type Mutability = #mutability;
                #change_ticks
                #hooks
                #required
                #clone_behavior
                #map_entities
                #snapshot
                #partner
                #integrity
            }
            #relationship_impl
        }
    }
}

/// `fn register_component_hooks` setting each hook the user named; nothing
/// when there is none.
///
/// Each path is passed as written, so a path that is not a
/// `fn(DeferredWorld, HookContext)` is the compiler's type error at the
/// path (for a bare key, at the key).
///
/// A relationship's own hooks (`own`, by key) run after the user's hook of
/// the same kind, in one closure.
fn generate_hooks(hooks: &[Hook], own: &[(&str, TokenStream)], krate: &Path) -> TokenStream {
    if hooks.is_empty() && own.is_empty() {
        return TokenStream::new();
    }
    // A prefixed name, so that a hook path the user wrote never resolves to
    // the generated parameter.
    let registry = Ident::new("__ecs_hooks", Span::call_site());
    let calls = hooks.iter().map(|Hook { kind, value }| {
        // The whole call at the value, so that a value of the wrong type is
        // one error there.
        let span = value.span();
        let registry = Ident::new(&registry.to_string(), span);
        let setter = Ident::new(kind.key(), span);
        let hook = value.generate(krate);
        match own.iter().find(|(key, _)| *key == kind.key()) {
            Some((_, own)) => quote_spanned! {span=>
                #registry.#setter(
                    |mut world: #krate::world::DeferredWorld, context: #krate::lifecycle::HookContext| {
                        (#hook)(world.reborrow(), context);
                        (#own)(world, context);
                    }
                );
            },
            None => quote_spanned!(span=> #registry.#setter(#hook);),
        }
    });
    let own_calls = own
        .iter()
        .filter(|(key, _)| !hooks.iter().any(|hook| hook.kind.key() == *key))
        .map(|(key, own)| {
            let setter = Ident::new(key, Span::call_site());
            quote!(#registry.#setter(#own);)
        });
    quote! {
        fn register_component_hooks(#registry: &mut #krate::component::ComponentHooks) {
            #(#calls)*
            #(#own_calls)*
        }
    }
}

/// The attributes of every variant and field, where `#[component(..)]` and
/// `#[require(..)]` mean nothing.
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
    /// The hooks named, at most one of each kind, in [`HookKind::ALL`]
    /// order.
    hooks: Vec<Hook>,
    /// `clone_behavior = ..`, read as `ComponentCloneBehavior::<expr>`.
    clone_behavior: Option<Expr>,
    /// `map_entities` or `map_entities = path`.
    map_entities: Option<MapEntitiesAttr>,
    /// `snapshot` or `snapshot = hash`.
    snapshot: Option<SnapshotAttr>,
    /// `no_change_ticks`: the world keeps no change ticks for the component.
    no_change_ticks: bool,
    /// `immutable`: values change only by replacement.
    immutable: bool,
}

impl ComponentAttr {
    /// The keys `#[component(..)]` knows, for the unknown-key message.
    const KEYS: &'static [&'static str] = &[
        "storage",
        "on_add",
        "on_insert",
        "on_discard",
        "on_remove",
        "on_despawn",
        "clone_behavior",
        "map_entities",
        "snapshot",
        "no_change_ticks",
        "immutable",
    ];

    fn parse(attrs: &[Attribute], errors: &mut Errors) -> Self {
        let mut storage = SetOnce::default();
        let mut clone_behavior = SetOnce::default();
        let mut map_entities = SetOnce::default();
        let mut snapshot = SetOnce::default();
        let mut no_change_ticks = SetOnce::default();
        let mut immutable = SetOnce::default();
        let mut hooks: [SetOnce<HookValue>; HookKind::ALL.len()] = Default::default();
        for meta in attr::args_of(attrs, "component", errors) {
            let key = meta.path();
            if key.is_ident("storage") {
                let value =
                    attr::string_value(&meta, Storage::USAGE).and_then(|lit| Storage::parse(&lit));
                if let Some(value) = errors.take(value) {
                    storage.set(key, value, errors);
                }
            } else if key.is_ident("clone_behavior") {
                if let Some(value) = errors.take(clone::parse_clone_behavior(&meta)) {
                    clone_behavior.set(key, value, errors);
                }
            } else if key.is_ident("map_entities") {
                if let Some(value) = errors.take(MapEntitiesAttr::parse(&meta)) {
                    map_entities.set(key, value, errors);
                }
            } else if key.is_ident("snapshot") {
                if let Some(value) = errors.take(SnapshotAttr::parse(&meta)) {
                    snapshot.set(key, value, errors);
                }
            } else if key.is_ident("no_change_ticks") {
                if let Some(()) = errors.take(attr::flag(&meta, "#[component(no_change_ticks)]")) {
                    no_change_ticks.set(key, (), errors);
                }
            } else if key.is_ident("immutable") {
                if let Some(()) = errors.take(attr::flag(&meta, "#[component(immutable)]")) {
                    immutable.set(key, (), errors);
                }
            } else if let Some(kind) = HookKind::from_key(key) {
                if let Some(value) = errors.take(HookValue::parse(&meta, kind)) {
                    hooks[kind as usize].set(key, value, errors);
                }
            } else if key.is_ident("on_replace") {
                errors.push(syn::Error::new_spanned(
                    key,
                    "unknown key `on_replace` in `#[component(..)]`: the hook that runs before a \
                     value is replaced or removed is `on_discard`: `on_discard = path::to::hook`",
                ));
            } else {
                errors.push(attr::unknown_key("component", key, Self::KEYS));
            }
        }
        let hooks = HookKind::ALL
            .into_iter()
            .zip(hooks)
            .filter_map(|(kind, value)| {
                Some(Hook {
                    kind,
                    value: value.get()?,
                })
            })
            .collect();
        Self {
            storage: storage.get().unwrap_or_default(),
            hooks,
            clone_behavior: clone_behavior.get(),
            map_entities: map_entities.get(),
            snapshot: snapshot.get(),
            no_change_ticks: no_change_ticks.get().is_some(),
            immutable: immutable.get().is_some(),
        }
    }
}

/// `on_add = path` and its siblings: a hook to register.
struct Hook {
    kind: HookKind,
    value: HookValue,
}

/// What a hook key names: something that is a `fn(DeferredWorld,
/// HookContext)`.
enum HookValue {
    /// `on_add = path::to::hook`, or the bare key `on_add`, which means the
    /// type's own `Self::on_add`.
    Path(Path),
    /// `on_add = make_hook(args)`: a call returning the hook as a closure.
    Call(ExprCall),
}

impl HookValue {
    /// Reads the value of the hook key `meta` (of kind `kind`).
    fn parse(meta: &Meta, kind: HookKind) -> syn::Result<Self> {
        let key = kind.key();
        let name_value = match meta {
            Meta::Path(path) => {
                let span = path.span();
                let method = Ident::new(key, span);
                return Ok(Self::Path(syn::parse_quote_spanned!(span=> Self::#method)));
            }
            Meta::NameValue(name_value) => name_value,
            Meta::List(_) => {
                return Err(syn::Error::new_spanned(
                    meta,
                    format!(
                        "expected `{key} = path::to::hook`, `{key} = make_hook(..)` or `{key}` \
                         (the method `Self::{key}`)"
                    ),
                ))
            }
        };
        match &name_value.value {
            Expr::Call(call) if call.attrs.is_empty() => Ok(Self::Call(call.clone())),
            _ => attr::path_value(meta, &format!("{key} = path::to::hook")).map(Self::Path),
        }
    }

    fn span(&self) -> Span {
        match self {
            Self::Path(path) => path.span(),
            Self::Call(call) => call.span(),
        }
    }

    /// The hook as an expression: the path itself, or the call wrapped in
    /// a `fn` item, since a hook is a function pointer and a closure the
    /// call returns may capture nothing but what the call made.
    fn generate(&self, krate: &Path) -> TokenStream {
        match self {
            Self::Path(path) => path.to_token_stream(),
            Self::Call(call) => {
                let span = call.span();
                quote_spanned! {span=>
                    {
                        fn __ecs_hook(
                            world: #krate::world::DeferredWorld,
                            context: #krate::lifecycle::HookContext,
                        ) {
                            (#call)(world, context)
                        }
                        __ecs_hook
                    }
                }
            }
        }
    }
}

/// The hook keys, mirroring the setters of `ComponentHooks` in the runtime.
#[derive(Clone, Copy)]
enum HookKind {
    Add,
    Insert,
    Discard,
    Remove,
    Despawn,
}

impl HookKind {
    const ALL: [Self; 5] = [
        Self::Add,
        Self::Insert,
        Self::Discard,
        Self::Remove,
        Self::Despawn,
    ];

    /// The attribute key, which is also the name of the runtime's setter.
    fn key(self) -> &'static str {
        match self {
            Self::Add => "on_add",
            Self::Insert => "on_insert",
            Self::Discard => "on_discard",
            Self::Remove => "on_remove",
            Self::Despawn => "on_despawn",
        }
    }

    fn from_key(key: &Path) -> Option<Self> {
        Self::ALL.into_iter().find(|kind| key.is_ident(kind.key()))
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
    use crate::test_support::{expand, messages};

    #[test]
    fn storage_defaults_to_table() {
        let out = expand(
            derive,
            parse_quote!(
                struct S;
            ),
        )
        .unwrap();
        assert!(
            out.contains(":: ecs :: component :: StorageType :: Table"),
            "{out}"
        );
    }

    #[test]
    fn storage_attribute_picks_the_variant() {
        let out = expand(
            derive,
            parse_quote!(
                #[component(storage = "SparseSet")]
                enum E {
                    A,
                }
            ),
        )
        .unwrap();
        assert!(out.contains("StorageType :: SparseSet"), "{out}");
    }

    #[test]
    fn crate_path_replaces_the_root() {
        let out = expand(
            derive,
            parse_quote!(
                #[ecs(crate = ecs_core)]
                struct S;
            ),
        )
        .unwrap();
        assert!(
            out.contains("impl ecs_core :: component :: Component for S"),
            "{out}"
        );
    }

    #[test]
    fn generics_and_where_clause_are_kept() {
        let out = expand(
            derive,
            parse_quote!(
                struct S<T: Send, const N: usize>([T; N])
                where
                    T: Sync + 'static;
            ),
        )
        .unwrap();
        assert!(out.contains("impl < T : Send , const N : usize >"), "{out}");
        assert!(
            out.contains("for S < T , N > where T : Sync + 'static"),
            "{out}"
        );
    }

    #[test]
    fn on_replace_points_at_on_discard() {
        let input = parse_quote! {
            #[component(on_replace = f)]
            struct S;
        };
        assert_eq!(
            messages(derive, input),
            [
                "unknown key `on_replace` in `#[component(..)]`: the hook that runs before a \
              value is replaced or removed is `on_discard`: `on_discard = path::to::hook`"
            ]
        );
    }

    #[test]
    fn every_problem_is_reported_at_once() {
        let input = parse_quote! {
            #[component(storage = "Tabel", storage = "Table", on_ad = f, on_add = 1)]
            #[require()]
            struct S<'a, 'b> {
                #[component(storage = "Table")]
                #[require(A)]
                name: &'a &'b str,
            }
        };
        assert_eq!(
            messages(derive, input),
            [
                "unknown storage `Tabel`: expected `\"Table\"` or `\"SparseSet\"`",
                "unknown key `on_ad` in `#[component(..)]`: expected one of `storage`, `on_add`, \
                 `on_insert`, `on_discard`, `on_remove`, `on_despawn`, `clone_behavior`, `map_entities`, \
                 `snapshot`, `no_change_ticks`, `immutable`",
                "expected a path: `on_add = path::to::hook`",
                "`#[require(..)]` needs at least one component: \
                 `#[require(Position, Velocity = Velocity(1.0, 0.0))]`",
                "`Component` types must be 'static: remove the lifetime parameter `'a`",
                "`Component` types must be 'static: remove the lifetime parameter `'b`",
                "`#[component(..)]` is not allowed here: it configures the whole type, so put it above the type",
                "`#[require(..)]` is not allowed here: it lists the components the whole type requires, \
                 so put it above the type",
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
        assert_eq!(messages(derive, input), ["duplicate key `storage`"]);
    }

    #[test]
    fn hooks_are_registered_by_their_setters() {
        let out = expand(
            derive,
            parse_quote!(
                #[component(on_remove = hooks::removed, storage = "SparseSet")]
                #[component(on_add = "added", on_despawn = despawned::<Self>)]
                struct S;
            ),
        )
        .unwrap();
        assert!(
            out.contains(
                "fn register_component_hooks (__ecs_hooks : & mut :: ecs :: component :: ComponentHooks) { \
                 __ecs_hooks . on_add (added) ; \
                 __ecs_hooks . on_remove (hooks :: removed) ; \
                 __ecs_hooks . on_despawn (despawned :: < Self >) ; }"
            ),
            "{out}"
        );
        assert!(!out.contains("register_required_components"), "{out}");
    }

    #[test]
    fn no_hooks_or_requirements_keep_the_default_methods() {
        let out = expand(
            derive,
            parse_quote!(
                struct S;
            ),
        )
        .unwrap();
        assert!(!out.contains("register_component_hooks"), "{out}");
        assert!(!out.contains("register_required_components"), "{out}");
    }

    #[test]
    fn requirements_are_registered() {
        let out = expand(
            derive,
            parse_quote!(
                #[require(A, B = B(2))]
                #[require(C(3))]
                struct S;
            ),
        )
        .unwrap();
        assert!(
            out.contains("fn register_required_components (__ecs_required : & mut :: ecs :: component :: RequiredComponentsRegistrar < '_ > ,)"),
            "{out}"
        );
        let a = out.find("register :: < A >").unwrap();
        let b = out.find("register :: < B > (|| B (2))").unwrap();
        let c = out.find("register :: < C > (|| C (3))").unwrap();
        assert!(a < b && b < c, "{out}");
    }

    #[test]
    fn bare_hook_keys_name_the_types_own_methods() {
        let out = expand(
            derive,
            parse_quote!(
                #[component(on_add, on_insert, on_discard, on_remove, on_despawn)]
                struct S;
            ),
        )
        .unwrap();
        for key in [
            "on_add",
            "on_insert",
            "on_discard",
            "on_remove",
            "on_despawn",
        ] {
            assert!(
                out.contains(&format!("__ecs_hooks . {key} (Self :: {key}) ;")),
                "{out}"
            );
        }
    }

    #[test]
    fn hook_calls_are_wrapped_in_a_function() {
        let out = expand(
            derive,
            parse_quote!(
                #[component(on_add = counter(2))]
                struct S;
            ),
        )
        .unwrap();
        assert!(
            out.contains(
                "__ecs_hooks . on_add ({ fn __ecs_hook (world : :: ecs :: world :: DeferredWorld , \
                 context : :: ecs :: lifecycle :: HookContext ,) { (counter (2)) (world , context) } \
                 __ecs_hook }) ;"
            ),
            "{out}"
        );
    }

    #[test]
    fn supertraits_bound_self() {
        let out = expand(
            derive,
            parse_quote!(
                struct S<T>(T);
            ),
        )
        .unwrap();
        assert!(
            out.contains(
                "for S < T > where Self : :: core :: marker :: Send + :: core :: marker :: Sync + 'static {"
            ),
            "{out}"
        );
    }

    #[test]
    fn duplicate_hook_is_an_error_at_the_second_key() {
        let input = parse_quote!(
            #[component(on_insert = a)]
            #[component(on_insert = b)]
            struct S;
        );
        let error = expand(derive, input).unwrap_err();
        assert_eq!(error.to_string(), "duplicate key `on_insert`");
    }

    #[test]
    fn snapshot_key_writes_the_behavior() {
        let out = expand(
            derive,
            parse_quote!(
                #[component(snapshot, storage = "SparseSet")]
                struct S;
            ),
        )
        .unwrap();
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
        let out = expand(
            derive,
            parse_quote!(
                #[component(snapshot = hash)]
                struct S;
            ),
        )
        .unwrap();
        assert!(
            out.contains("SnapshotBehavior :: hashed :: < Self > ()"),
            "{out}"
        );
    }

    #[test]
    fn snapshot_takes_only_hash() {
        let input = parse_quote!(
            #[component(snapshot = "hash", snapshot(hash))]
            #[component(snapshot, snapshot = hash)]
            struct S;
        );
        assert_eq!(
            messages(derive, input),
            [
                "expected `snapshot` or `snapshot = hash`",
                "expected `snapshot` or `snapshot = hash`",
                "duplicate key `snapshot`",
            ]
        );
    }

    #[test]
    fn no_change_ticks_sets_change_ticks_to_false() {
        let out = expand(
            derive,
            parse_quote!(
                #[component(no_change_ticks, storage = "SparseSet")]
                struct S;
            ),
        )
        .unwrap();
        assert!(out.contains("const CHANGE_TICKS : bool = false ;"), "{out}");
        let plain = expand(
            derive,
            parse_quote!(
                struct S;
            ),
        )
        .unwrap();
        assert!(!plain.contains("CHANGE_TICKS"), "{plain}");
    }

    #[test]
    fn no_change_ticks_takes_no_value_and_comes_once() {
        let input = parse_quote!(
            #[component(no_change_ticks = true)]
            #[component(no_change_ticks, no_change_ticks)]
            struct S;
        );
        assert_eq!(
            messages(derive, input),
            [
                "`no_change_ticks` takes no value: write `#[component(no_change_ticks)]`",
                "duplicate key `no_change_ticks`",
            ]
        );
    }

    #[test]
    fn immutable_and_relationships_pick_the_immutable_mutability() {
        let mutability = |input: DeriveInput| {
            let out = expand(derive, input).unwrap();
            let start = out.find("type Mutability =").expect("a Mutability item");
            out[start..start + out[start..].find(';').unwrap()]
                .trim_end()
                .to_string()
        };
        assert!(mutability(parse_quote!(
            #[component(immutable)]
            struct S;
        ))
        .ends_with(":: Immutable"),);
        assert!(mutability(parse_quote!(
            struct S;
        ))
        .ends_with(":: Mutable"));
        assert!(mutability(parse_quote!(
            #[relationship(relationship_target = Ts)]
            struct T(Entity);
        ))
        .ends_with(":: Immutable"));
        assert!(mutability(parse_quote!(
            #[relationship_target(relationship = T)]
            struct Ts(Vec<Entity>);
        ))
        .ends_with(":: Mutable"));
    }

    #[test]
    fn a_relationship_target_cannot_be_immutable() {
        let input = parse_quote!(
            #[component(immutable)]
            #[relationship_target(relationship = T)]
            struct Ts(Vec<Entity>);
        );
        assert_eq!(
            messages(derive, input),
            [
                "`#[component(immutable)]` on a `#[relationship_target(..)]`: the relationship's \
              hooks change the list in place, so a relationship target stays mutable \
              (the `#[relationship(..)]` side is immutable already)"
            ]
        );
    }

    #[test]
    fn immutable_takes_no_value_and_comes_once() {
        let input = parse_quote!(
            #[component(immutable = true)]
            #[component(immutable, immutable)]
            struct S;
        );
        assert_eq!(
            messages(derive, input),
            [
                "`immutable` takes no value: write `#[component(immutable)]`",
                "duplicate key `immutable`",
            ]
        );
    }

    #[test]
    fn storage_needs_a_string() {
        let input = parse_quote!(
            #[component(storage = Table)]
            struct S;
        );
        assert_eq!(
            messages(derive, input),
            ["expected a string literal: `storage = \"Table\"` or `storage = \"SparseSet\"`"]
        );
    }
}
