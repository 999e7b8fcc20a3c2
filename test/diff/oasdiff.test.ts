/**
 * An outside corpus: oasdiff's own base/revision pairs, each with the verdict oasdiff's checker tests expect, run
 * through our diff. The judgement compared is "breaking or not" (the highest level oasdiff's tests expect for the
 * pair against the highest level we report; component-schema additions and removals and example checks, which
 * oasdiff's tests do not cover, are left out). A pair where we disagree names its reason; every reason is documented
 * in docs/diff-checks.md ("Where we disagree with oasdiff").
 *
 * The data is not in this repository (it is oasdiff's, and what the workplace fetches stays out of commits): the
 * test reads it from OASDIFF_DATA, the `data/` folder of github.com/oasdiff/oasdiff at the commit below, e.g.
 *   OASDIFF_DATA=/path/to/oasdiff/data npx vitest run test/diff/oasdiff.test.ts
 * Without OASDIFF_DATA it skips and says why. CI (CI=true) has no network and no copy of that repository, so it
 * always skips there; the always-run corpus of our own words is test/diff/corpus.test.ts.
 *
 * The table below is our own record: pair names and the verdict we derived from oasdiff's checker tests
 * (`checker/*_test.go` and the `TestBreaking_*` tests of `checker/` at commit
 * 4553c69d3869ee555ee4f00831d8cca6e1c208ff, Apache-2.0): for each pair, the highest level among the change ids its
 * test expects (`ERR` breaking, `WARN` warning, `INFO` info, none when the test expects no change), named by test.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { diffModels, type Change } from '../../generators/diff/index.js';
import { loadOpenApiDocument } from '../../generators/model/load.js';
import { ROOT } from './helpers.js';

type Verdict = 'breaking' | 'warning' | 'info' | 'none';
type Reason = 'security' | 'sunset' | 'one-rule' | 'stricter' | 'policy-warning' | 'webhook' | 'anyof-added' | 'same-shape' | 'typed-parameter' | 'visibility' | 'allof-merged';
/** [base, revision, oasdiff's verdict, the oasdiff test it comes from, our verdict where we disagree, why]. */
type Row = [string, string, Verdict, string, Verdict?, Reason?];

const SOURCE = { repo: 'github.com/oasdiff/oasdiff', commit: '4553c69d3869ee555ee4f00831d8cca6e1c208ff', tests: 'checker/*_test.go' } as const;
const DATA = process.env.OASDIFF_DATA ? path.resolve(process.env.OASDIFF_DATA) : null;
const SKIP = DATA === null
  ? `OASDIFF_DATA is not set: the oasdiff corpus (the data/ folder of ${SOURCE.repo} at ${SOURCE.commit}) is not in this repository${process.env.CI === 'true' ? '; CI cannot fetch it' : ''}`
  : !existsSync(path.join(DATA, 'checker')) ? `OASDIFF_DATA=${DATA} is not oasdiff's data/ folder (no checker/ in it)` : null;
if (SKIP) console.log(`skipped the oasdiff corpus: ${SKIP}`);
const RANK: Record<Verdict, number> = { none: 0, info: 1, warning: 2, breaking: 3 };
const NAMES: Verdict[] = ['none', 'info', 'warning', 'breaking'];
const LEFT_OUT = new Set(['type-added', 'type-removed', 'example-no-longer-valid']);

const ROWS: Row[] = [
  ['additional-properties/base.yaml', 'additional-properties/revision.yaml', 'breaking', 'TestResponseAdditionalPropertyTypeChangedCheck'],
  ['additional-properties/embedded-base.yaml', 'additional-properties/embedded-revision.yaml', 'breaking', 'TestResponseEmbeddedAdditionalPropertyTypeChangedCheck'],
  ['attributes/base.yaml', 'attributes/revision.yaml', 'none', 'TestBreaking_Attributes', 'breaking', 'one-rule'],
  ['attributes/revision.yaml', 'attributes/base.yaml', 'none', 'TestBreaking_AttributesReverse', 'breaking', 'one-rule'],
  ['checker/add_new_media_type_base.yaml', 'checker/add_new_media_type_revision.yaml', 'info', 'TestAddNewMediaType'],
  ['checker/add_new_media_type_revision.yaml', 'checker/add_new_media_type_base.yaml', 'breaking', 'TestDeleteNewMediaType'],
  ['checker/additional_properties_traversal_base.yaml', 'checker/additional_properties_traversal_revision.yaml', 'breaking', 'TestAdditionalPropertiesTraversalDeletedRequiredProperty'],
  ['checker/additional_properties_traversal_revision.yaml', 'checker/additional_properties_traversal_base.yaml', 'info', 'TestAdditionalPropertiesTraversalAddedRequiredProperty'],
  ['checker/api_security_added_base.yaml', 'checker/api_security_added_revision.yaml', 'info', 'TestAPISecurityAdded', 'breaking', 'security'],
  ['checker/api_security_added_revision.yaml', 'checker/api_security_added_base.yaml', 'info', 'TestAPISecurityDeleted'],
  ['checker/api_security_global_added_base.yaml', 'checker/api_security_global_added_revision.yaml', 'info', 'TestAPIGlobalSecurityyAdded', 'breaking', 'security'],
  ['checker/api_security_global_added_revision.yaml', 'checker/api_security_global_added_base.yaml', 'info', 'TestAPIGlobalSecurityyDeleted'],
  ['checker/api_security_updated_base.yaml', 'checker/api_security_updated_revision.yaml', 'info', 'TestAPISecurityScopeRemoved'],
  ['checker/api_security_updated_revision.yaml', 'checker/api_security_updated_base.yaml', 'info', 'TestAPISecurityScopeAdded', 'breaking', 'security'],
  ['checker/common_request_parameter_max_items_updated_revision.yaml', 'checker/common_request_parameter_max_items_updated_base.yaml', 'none', 'TestBreaking_RequestParameterMaxItemsWithoutFlatten', 'breaking', 'one-rule'],
  ['checker/component_security_updated_base.yaml', 'checker/component_security_updated_revision.yaml', 'info', 'TestComponentSecurityAdded'],
  ['checker/component_security_updated_revision.yaml', 'checker/component_security_updated_base.yaml', 'info', 'TestComponentSecurityRemoved'],
  ['checker/exclusive_min_max_base.yaml', 'checker/exclusive_min_max_revision.yaml', 'breaking', 'TestRequestParameterExclusiveMinIncreased'],
  ['checker/exclusive_min_max_revision.yaml', 'checker/exclusive_min_max_base.yaml', 'info', 'TestRequestPropertyExclusiveMinDecreased'],
  ['checker/exclusive_min_max_set_base.yaml', 'checker/exclusive_min_max_set_revision.yaml', 'warning', 'TestRequestParameterExclusiveMinSet', 'breaking', 'stricter'],
  ['checker/not_base.yaml', 'checker/not_revision.yaml', 'breaking', 'TestNotSubSchemaTraversalModifiedProperty'],
  ['checker/request_body_any_of_media_type_base.yaml', 'checker/request_body_any_of_media_type_revision.yaml', 'breaking', 'TestRequestBodyAnyOfMultiMediaTypeDetails', 'none', 'same-shape'],
  ['checker/request_body_const_changed_base.yaml', 'checker/request_body_const_changed_revision.yaml', 'breaking', 'TestRequestBodyConstChanged'],
  ['checker/request_body_max_length_set_base.yaml', 'checker/request_body_max_length_set_revision.yaml', 'warning', 'TestRequestBodyMaxLengthSetCheck', 'breaking', 'stricter'],
  ['checker/request_body_max_set_base.yaml', 'checker/request_body_max_set_revision.yaml', 'warning', 'TestRequestBodyMaxSetCheck', 'breaking', 'stricter'],
  ['checker/request_body_media_type_updated_base.yaml', 'checker/request_body_media_type_updated_revision.yaml', 'info', 'TestRequestBodyMediaTypeAdded'],
  ['checker/request_body_media_type_updated_revision.yaml', 'checker/request_body_media_type_updated_base.yaml', 'breaking', 'TestBreaking_RequestBodyMediaTypeRemoved'],
  ['checker/request_body_nullable_31_base.yaml', 'checker/request_body_nullable_31_revision.yaml', 'breaking', 'TestRequestBodyBecameNullable31'],
  ['checker/request_body_removed_base.yaml', 'checker/request_body_removed_revision.yaml', 'breaking', 'TestRequestBodyRemoved', 'warning', 'policy-warning'],
  ['checker/request_param_multitype_to_array_31_base.yaml', 'checker/request_param_multitype_to_array_31_revision.yaml', 'info', 'TestRequestQueryParamMultiTypeToFormExplodeArraySafe', 'breaking', 'typed-parameter'],
  ['checker/request_param_multitype_to_array_31_base.yaml', 'checker/request_param_multitype_to_array_integer_31_revision.yaml', 'breaking', 'TestRequestQueryParamWideningToNarrowerItemTypeStillBreaking'],
  ['checker/request_param_multitype_to_array_31_base.yaml', 'checker/request_param_multitype_to_constrained_array_31_revision.yaml', 'breaking', 'TestRequestQueryParamMultiTypeToConstrainedArrayBreaking'],
  ['checker/request_param_scalar_to_constrained_array_31_base.yaml', 'checker/request_param_scalar_to_constrained_array_31_revision.yaml', 'breaking', 'TestRequestQueryParamScalarToConstrainedArrayBreaking'],
  ['checker/request_parameter_array_max_items_base.yaml', 'checker/request_parameter_array_max_items_revision.yaml', 'breaking', 'TestRequestParameterArrayMaxItemsDecreased'],
  ['checker/request_parameter_became_enum_base.yaml', 'checker/request_parameter_became_enum_revision.yaml', 'breaking', 'TestRequestParameterBecameEnum'],
  ['checker/request_parameter_enum_value_updated_base.yaml', 'checker/request_parameter_enum_value_updated_revision.yaml', 'breaking', 'TestRequestParameterEnumValueRemovedCheck'],
  ['checker/request_parameter_enum_value_updated_revision.yaml', 'checker/request_parameter_enum_value_updated_base.yaml', 'info', 'TestRequestParameterEnumValueAddedCheck'],
  ['checker/request_parameter_max_items_updated_base.yaml', 'checker/request_parameter_max_items_updated_revision.yaml', 'info', 'TestRequestParameterMaxItemsIncreased'],
  ['checker/request_parameter_max_items_updated_revision.yaml', 'checker/request_parameter_max_items_updated_base.yaml', 'breaking', 'TestRequestParameterMaxItemsDecreased'],
  ['checker/request_parameter_max_length_set_base.yaml', 'checker/request_parameter_max_length_set_revision.yaml', 'warning', 'TestRequestParameterMaxLengthSetCheck', 'breaking', 'stricter'],
  ['checker/request_parameter_max_length_updated_base.yaml', 'checker/request_parameter_max_length_updated_revision.yaml', 'info', 'TestRequestParameterMaxLengthIncreasedCheck'],
  ['checker/request_parameter_max_length_updated_revision.yaml', 'checker/request_parameter_max_length_updated_base.yaml', 'breaking', 'TestRequestParameterMaxLengthDecreasedCheck'],
  ['checker/request_parameter_max_updated_base.yaml', 'checker/request_parameter_max_updated_revision.yaml', 'info', 'TestRequestParameterMaxIncreased'],
  ['checker/request_parameter_max_updated_revision.yaml', 'checker/request_parameter_max_updated_base.yaml', 'breaking', 'TestRequestParameterMaxDecreased'],
  ['checker/request_parameter_min_increased_base.yaml', 'checker/request_parameter_min_increased_revision.yaml', 'breaking', 'TestRequestParameterMinIncreased'],
  ['checker/request_parameter_min_increased_revision.yaml', 'checker/request_parameter_min_increased_base.yaml', 'info', 'TestRequestParameterMinDecreased'],
  ['checker/request_parameter_min_items_increased_base.yaml', 'checker/request_parameter_min_items_increased_revision.yaml', 'breaking', 'TestRequestParameterMinItemsIncreased'],
  ['checker/request_parameter_min_items_increased_revision.yaml', 'checker/request_parameter_min_items_increased_base.yaml', 'info', 'TestRequestParameterMinItemsDecreased'],
  ['checker/request_parameter_min_length_increased_base.yaml', 'checker/request_parameter_min_length_increased_revision.yaml', 'breaking', 'TestRequestParameterMinLengthIncreasedCheck'],
  ['checker/request_parameter_min_length_increased_revision.yaml', 'checker/request_parameter_min_length_increased_base.yaml', 'info', 'TestRequestParameterMinLengthDecreasedCheck'],
  ['checker/request_parameter_pattern_added_or_changed_base.yaml', 'checker/request_parameter_pattern_added_or_changed_revision.yaml', 'info', 'TestRequestParameterPatternRemoved'],
  ['checker/request_parameter_pattern_added_or_changed_revision.yaml', 'checker/request_parameter_pattern_added_or_changed_base.yaml', 'breaking', 'TestRequestParameterPatternAdded'],
  ['checker/request_parameter_property_enum_value_updated_base.yaml', 'checker/request_parameter_property_enum_value_updated_revision.yaml', 'breaking', 'TestRequestParameterPropertyEnumValueRemovedCheck'],
  ['checker/request_parameter_property_enum_value_updated_revision.yaml', 'checker/request_parameter_property_enum_value_updated_base.yaml', 'info', 'TestRequestParameterPropertyEnumValueAddedCheck'],
  ['checker/request_parameter_property_type_changed_base_int.yaml', 'checker/request_parameter_property_type_changed_base_num.yaml', 'info', 'TestBreaking_ReqQueryParamTypeIntegerToNumber'],
  ['checker/request_parameter_property_type_changed_base_num.yaml', 'checker/request_parameter_property_type_changed_revision.yaml', 'warning', 'TestBreaking_ReqQueryParamTypeNumberToString'],
  ['checker/request_parameter_property_type_changed_revision.yaml', 'checker/request_parameter_property_type_changed_base_num.yaml', 'breaking', 'TestBreaking_ReqQueryParamTypeStringToNumber'],
  ['checker/request_property_added_base.yaml', 'checker/request_property_added_revision.yaml', 'breaking', 'TestRequiredRequestPropertyAdded'],
  ['checker/request_property_added_base.yaml', 'checker/request_property_added_revision2.yaml', 'breaking', 'TestRequiredRequestPropertiesAdded'],
  ['checker/request_property_added_base.yaml', 'checker/request_property_added_with_default.yaml', 'breaking', 'TestRequiredRequestPropertyAddedWithDefault'],
  ['checker/request_property_added_revision.yaml', 'checker/request_property_added_base.yaml', 'warning', 'TestRequiredRequestPropertyRemoved'],
  ['checker/request_property_any_of_added_base.yaml', 'checker/request_property_any_of_added_revision.yaml', 'info', 'TestRequestPropertyAnyOfAdded'],
  ['checker/request_property_any_of_ref_inline_enum_base.yaml', 'checker/request_property_any_of_ref_inline_enum_revision.yaml', 'none', 'TestRequestPropertyAnyOfInlineEnumRefactorToRef'],
  ['checker/request_property_any_of_removed_base.yaml', 'checker/request_property_any_of_removed_revision.yaml', 'breaking', 'TestBreaking_RequestPropertyAnyOfRemoved'],
  ['checker/request_property_became_nullable_31_base.yaml', 'checker/request_property_became_nullable_31_revision.yaml', 'breaking', 'TestRequestPropertyBecameNullable31'],
  ['checker/request_property_became_nullable_base.yaml', 'checker/request_property_became_nullable_revision.yaml', 'info', 'TestRequestPropertyBecameNullable'],
  ['checker/request_property_discriminator_added_base.yaml', 'checker/request_property_discriminator_added_revision.yaml', 'info', 'TestRequestDiscriminatorUpdatedCheckAdded'],
  ['checker/request_property_discriminator_added_revision.yaml', 'checker/request_property_discriminator_added_base.yaml', 'info', 'TestRequestDiscriminatorUpdatedCheckRemoved'],
  ['checker/request_property_discriminator_added_revision.yaml', 'checker/request_property_discriminator_added_property_name_changed.yaml', 'info', 'TestRequestDiscriminatorUpdatedCheckPropertyNameChanging'],
  ['checker/request_property_discriminator_added_revision.yaml', 'checker/request_property_discriminator_mapping_changed.yaml', 'info', 'TestRequestDiscriminatorUpdatedCheckMappingChanging'],
  ['checker/request_property_max_length_set_base.yaml', 'checker/request_property_max_length_set_revision.yaml', 'warning', 'TestRequestPropertyMaxLengthSetCheck', 'breaking', 'stricter'],
  ['checker/request_property_max_set_base.yaml', 'checker/request_property_max_set_revision.yaml', 'warning', 'TestRequestPropertyMaxSetCheck', 'breaking', 'stricter'],
  ['checker/request_property_min_increased_base.yaml', 'checker/request_property_min_increased_revision.yaml', 'breaking', 'TestRequestPropertyMinIncreasedCheck'],
  ['checker/request_property_min_increased_revision.yaml', 'checker/request_property_min_increased_base.yaml', 'info', 'TestRequestPropertyMinDecreasedCheck'],
  ['checker/request_property_min_items_increased_base.yaml', 'checker/request_property_min_items_increased_revision.yaml', 'breaking', 'TestRequestBodyMinItemsIncreased'],
  ['checker/request_property_min_items_increased_revision.yaml', 'checker/request_property_min_items_increased_base.yaml', 'none', 'TestRequestBodyMinItemsDecreased'],
  ['checker/request_property_one_of_added_base.yaml', 'checker/request_property_one_of_added_revision.yaml', 'info', 'TestRequestPropertyOneOfAdded'],
  ['checker/request_property_one_of_removed_base.yaml', 'checker/request_property_one_of_removed_revision.yaml', 'breaking', 'TestBreaking_RequestPropertyOneOfRemoved'],
  ['checker/request_property_one_of_wrapped_base.yaml', 'checker/request_property_one_of_wrapped_revision.yaml', 'breaking', 'TestRequestPropertyOneOfWrappingIsBreaking'],
  ['checker/request_property_pattern_added_or_changed_base.yaml', 'checker/request_property_pattern_added_or_changed_revision.yaml', 'info', 'TestRequestPropertyPatternRemoved'],
  ['checker/request_property_pattern_added_or_changed_revision.yaml', 'checker/request_property_pattern_added_or_changed_base.yaml', 'breaking', 'TestRequestPropertyPatternAdded'],
  ['checker/request_property_type_changed_base.yaml', 'checker/request_property_type_changed_revision.yaml', 'breaking', 'TestRequestPropertyTypeChangedCheck'],
  ['checker/request_property_type_changed_base_array_to_object.yaml', 'checker/request_property_type_changed_revision_array_to_object.yaml', 'breaking', 'TestRequestBodyAndPropertyTypesChangedCheckArrayToObject'],
  ['checker/request_property_type_changed_revision_array_to_object.yaml', 'checker/request_property_type_changed_base_array_to_object.yaml', 'breaking', 'TestRequestBodyAndPropertyTypesChangedCheckObjectToArray'],
  ['checker/request_xml_type_compatible_base.yaml', 'checker/request_xml_type_compatible_revision.yaml', 'info', 'TestRequestBodyTypeLooselyTypedCompatible'],
  ['checker/response_min_decreased_base.yaml', 'checker/response_min_decreased_revision.yaml', 'breaking', 'TestResponseBodyMinDecreased', 'warning', 'policy-warning'],
  ['checker/response_optional_property_removed_base.yaml', 'checker/response_optional_property_removed_revision.yaml', 'warning', 'TestResponseOptionalPropertyUpdatedCheck'],
  ['checker/response_optional_property_removed_revision.yaml', 'checker/response_optional_property_removed_base.yaml', 'info', 'TestResponseOptionalPropertyAddedCheck'],
  ['checker/response_property_any_of_added_base.yaml', 'checker/response_property_any_of_added_revision.yaml', 'info', 'TestResponsePropertyAnyOfAdded', 'breaking', 'anyof-added'],
  ['checker/response_property_any_of_complex_base.yaml', 'checker/response_property_any_of_complex_revision.yaml', 'breaking', 'TestResponsePropertyAnyOfModified'],
  ['checker/response_property_any_of_removed_base.yaml', 'checker/response_property_any_of_removed_revision.yaml', 'info', 'TestResponsePropertyAnyOfRemoved'],
  ['checker/response_property_became_optional_base.yaml', 'checker/response_property_became_optional_revision.yaml', 'breaking', 'TestResponsePropertyBecameOptionalCheck'],
  ['checker/response_property_became_optional_revision.yaml', 'checker/response_property_became_optional_base.yaml', 'info', 'TestResponsePropertyBecameRequiredlCheck'],
  ['checker/response_property_const_changed_base.yaml', 'checker/response_property_const_changed_revision.yaml', 'breaking', 'TestResponsePropertyConstChanged', 'warning', 'policy-warning'],
  ['checker/response_property_discriminator_added_base.yaml', 'checker/response_property_discriminator_added_revision.yaml', 'info', 'TestResponseDiscriminatorUpdatedCheckAdded'],
  ['checker/response_property_discriminator_added_revision.yaml', 'checker/response_property_discriminator_added_base.yaml', 'info', 'TestResponseDiscriminatorUpdatedCheckRemoved'],
  ['checker/response_property_discriminator_added_revision.yaml', 'checker/response_property_discriminator_added_property_name_changed.yaml', 'info', 'TestResponseDiscriminatorUpdatedCheckPropertyNameChanging'],
  ['checker/response_property_discriminator_added_revision.yaml', 'checker/response_property_discriminator_mapping_changed.yaml', 'info', 'TestResponseDiscriminatorUpdatedCheckMappingChanging'],
  ['checker/response_property_one_of_added_base.yaml', 'checker/response_property_one_of_added_revision.yaml', 'breaking', 'TestResponsePropertyOneOfAdded'],
  ['checker/response_property_one_of_removed_base.yaml', 'checker/response_property_one_of_removed_revision.yaml', 'info', 'TestResponsePropertyOneOfRemoved'],
  ['checker/response_property_one_of_wrapped_base.yaml', 'checker/response_property_one_of_wrapped_revision.yaml', 'breaking', 'TestResponsePropertyOneOfWrappingIsBreaking'],
  ['checker/response_required_property_added_base.yaml', 'checker/response_required_property_added_revision.yaml', 'info', 'TestBreaking_RequiredResponsePropertyAdded'],
  ['checker/response_schema_type_changed_base.yaml', 'checker/response_schema_type_changed_revision.yaml', 'breaking', 'TestResponseSchemaTypeChangedCheck'],
  ['checker/response_xml_type_compatible_base.yaml', 'checker/response_xml_type_compatible_revision.yaml', 'info', 'TestResponseBodyTypeLooselyTypedCompatible'],
  ['checker/sub_schema_added_property_base.yaml', 'checker/sub_schema_added_property_revision.yaml', 'breaking', 'TestSubSchemaTraversalAddedProperty'],
  ['checker/sub_schema_added_property_revision.yaml', 'checker/sub_schema_added_property_base.yaml', 'warning', 'TestSubSchemaTraversalDeletedProperty'],
  ['checker/sub_schema_traversal_base.yaml', 'checker/sub_schema_traversal_revision.yaml', 'breaking', 'TestSubSchemaTraversalMinLengthChanged'],
  ['checker/webhook_base.yaml', 'checker/webhook_revision.yaml', 'breaking', 'TestWebhookAddedAndRemoved'],
  ['checker/webhook_operation_base.yaml', 'checker/webhook_operation_revision.yaml', 'breaking', 'TestWebhookOperationChangesDetected', 'info', 'webhook'],
  ['deprecation/base-alpha-stability.yaml', 'deprecation/base-beta-stability.yaml', 'none', 'TestBreaking_StabilityLevelIncreased'],
  ['deprecation/base-alpha-stability.yaml', 'deprecation/deprecated-no-sunset-alpha-stability.yaml', 'none', 'TestBreaking_DeprecationForAlpha'],
  ['deprecation/deprecated-future.yaml', 'deprecation/deprecated-future-2.yaml', 'none', 'TestBreaking_NoChangeToSunsetDeprecatedEndpoint', 'breaking', 'sunset'],
  ['deprecation/deprecated-past.yaml', 'deprecation/sunset.yaml', 'none', 'TestBreaking_DeprecationPast'],
  ['deprecation/deprecated-path-past.yaml', 'deprecation/sunset-path.yaml', 'none', 'TestBreaking_DeprecationPathPast'],
  ['deprecation/deprecated-with-other-extension.yaml', 'deprecation/deprecated-no-sunset.yaml', 'none', 'TestBreaking_NonSunsetDeletedForDeprecatedEndpoint'],
  ['deprecation/property_base_alpha.yaml', 'deprecation/property_deprecated_no_sunset_alpha.yaml', 'none', 'TestRequestPropertyDeprecation_ForAlpha'],
  ['enums/request-body-enum-revision.yaml', 'enums/request-body-enum.yaml', 'none', 'TestBreaking_ReqBodyEnumValueAdded'],
  ['enums/request-parameter-op-no-enum.yaml', 'enums/request-parameter-op-enum.yaml', 'breaking', 'TestBreaking_ReqParameterBecameEnum'],
  ['enums/request-parameter-property-no-enum.yaml', 'enums/request-parameter-property-enum.yaml', 'breaking', 'TestBreaking_ReqParameterHeaderPropertyBecameEnum'],
  ['enums/request-property-no-enum.yaml', 'enums/request-property-enum.yaml', 'breaking', 'TestBreaking_ReqPropertyBecameEnum'],
  ['enums/response-enum.yaml', 'enums/response-enum-2.yaml', 'info', 'TestBreaking_ResponseMediaTypeEnumRemoved'],
  ['media-type-schema/base.yaml', 'media-type-schema/revision.yaml', 'breaking', 'TestMediaTypeSchemaExistence'],
  ['new_endpoints/base.yaml', 'new_endpoints/revision.yaml', 'none', 'TestApiAdded_DetectsNewPathsAndNewOperations'],
  ['new_endpoints/base_with_path_param.yaml', 'new_endpoints/revision_with_path_param.yaml', 'none', 'TestApiAdded_DetectsModifiedPathsWithPathParam'],
  ['nullable/base-body.yaml', 'nullable/revision-body.yaml', 'breaking', 'TestBreaking_RespBodyNullable'],
  ['nullable/base-embedded-property.yaml', 'nullable/revision-embedded-property.yaml', 'breaking', 'TestBreaking_RespBodyEmbeddedPropertyNullable'],
  ['nullable/base-property.yaml', 'nullable/revision-property.yaml', 'breaking', 'TestBreaking_RespBodyPropertyNullable'],
  ['openapi-test1.yaml', 'openapi-test3.yaml', 'breaking', 'TestBreaking_AddedEnum'],
  ['openapi-test702.yaml', 'openapi-test1.yaml', 'breaking', 'TestBreaking_DeletedEnum'],
  ['openapi-test703.yaml', 'openapi-test704.yaml', 'warning', 'TestBreaking_AddedResponseEnum'],
  ['openapi-test704.yaml', 'openapi-test703.yaml', 'info', 'TestBreaking_ResponsePropertyEnumRemoved'],
  ['param-deprecation/base-alpha-stability.yaml', 'param-deprecation/deprecated-no-sunset-alpha-stability.yaml', 'none', 'TestBreaking_ParameterDeprecationForAlpha'],
  ['param-deprecation/base-alpha-stability.yaml', 'param-deprecation/sunset-alpha-stability.yaml', 'none', 'TestBreaking_RemovedParameterForAlpha'],
  ['param-deprecation/base.yaml', 'param-deprecation/sunset.yaml', 'warning', 'TestBreaking_DeletedParameter'],
  ['param-deprecation/deprecated-future.yaml', 'param-deprecation/deprecated-future-2.yaml', 'none', 'TestBreaking_NoChangeToSunsetDeprecatedParameter'],
  ['param-deprecation/deprecated-no-sunset.yaml', 'param-deprecation/sunset.yaml', 'none', 'TestBreaking_ParameterDeprecationNoSunset'],
  ['param-deprecation/deprecated-past.yaml', 'param-deprecation/sunset.yaml', 'none', 'TestBreaking_ParameterDeprecationPast'],
  ['param-deprecation/deprecated-with-other-extension.yaml', 'param-deprecation/deprecated-no-sunset.yaml', 'none', 'TestBreaking_NonSunsetDeletedForDeprecatedParameter'],
  ['pattern-base.yaml', 'pattern-modified-not-anystring.yaml', 'warning', 'TestBreaking_ModifyPattern'],
  ['pattern-base.yaml', 'pattern-modified.yaml', 'none', 'TestBreaking_GeneralizedPattern'],
  ['pattern-base.yaml', 'pattern-revision.yaml', 'none', 'TestBreaking_DeletePatten'],
  ['pattern-parameter-base.yaml', 'pattern-parameter-modified-not-anystring.yaml', 'warning', 'TestBreaking_ModifyParameterPattern', 'breaking', 'stricter'],
  ['pattern-revision-recursive.yaml', 'pattern-base-recursive.yaml', 'none', 'TestBreaking_AddPatternRecursive'],
  ['pattern-revision.yaml', 'pattern-base.yaml', 'none', 'TestBreaking_AddPattern'],
  ['request_params/base.yaml', 'request_params/optional-request-params.yaml', 'info', 'TestNewRequestNonPathParameter_DetectsNewPathsAndNewOperations'],
  ['request_params/base.yaml', 'request_params/required-request-params.yaml', 'breaking', 'TestNewRequestNonPathParameter_DetectsNewRequiredPathsAndNewOperations'],
  ['required-properties/anyOf1.yaml', 'required-properties/anyOf2.yaml', 'breaking', 'TestBreaking_AnyOf'],
  ['required-properties/body1.yaml', 'required-properties/body2.yaml', 'breaking', 'TestBreaking_Body'],
  ['required-properties/items1.yaml', 'required-properties/items2.yaml', 'breaking', 'TestBreaking_Items'],
  ['required-properties/items1.yaml', 'required-properties/items3.yaml', 'breaking', 'TestBreaking_ItemsWithDefault'],
  ['required-properties/nested-property1.yaml', 'required-properties/nested-property2.yaml', 'breaking', 'TestBreaking_NestedProp'],
  ['required-properties/read-only-base.yaml', 'required-properties/read-only-revision.yaml', 'none', 'TestBreaking_ReadOnlyPropertyRequiredEnabled'],
  ['required-properties/read-only-new-base.yaml', 'required-properties/read-only-new-revision.yaml', 'none', 'TestBreaking_ReadOnlyNewRequiredProperty'],
  ['required-properties/request-base.yaml', 'required-properties/request-revision.yaml', 'none', 'TestBreaking_ReqBodyRequiredPropertyDisabled'],
  ['required-properties/request-new-base.yaml', 'required-properties/request-new-revision.yaml', 'breaking', 'TestBreaking_ReqBodyNewRequiredProperty'],
  ['required-properties/request-new-required-prop-base.yaml', 'required-properties/request-new-required-prop-revision.yaml', 'none', 'TestBreaking_ReqBodyNewRequiredPropertyNew', 'breaking', 'one-rule'],
  ['required-properties/request-new-revision.yaml', 'required-properties/request-new-base.yaml', 'warning', 'TestBreaking_ReqBodyDeleteRequiredProperty'],
  ['required-properties/request-property-items.yaml', 'required-properties/request-property-items-2.yaml', 'warning', 'TestBreaking_ReqBodyDeleteRequiredProperty2'],
  ['required-properties/request-revision.yaml', 'required-properties/request-base.yaml', 'breaking', 'TestBreaking_ReqBodyRequiredPropertyEnabled'],
  ['required-properties/response-allof-base.json', 'required-properties/response-allof-revision.json', 'none', 'TestBreaking_RespBodyNewAllOfRequiredProperty'],
  ['required-properties/response-allof-revision.json', 'required-properties/response-allof-base.json', 'breaking', 'TestBreaking_RespBodyDeleteAllOfRequiredProperty'],
  ['required-properties/response-base.json', 'required-properties/response-revision.json', 'breaking', 'TestBreaking_RespBodyRequiredPropertyDisabled'],
  ['required-properties/response-del-required-prop-base.yaml', 'required-properties/response-del-required-prop-revision.yaml', 'none', 'TestBreaking_RespBodyDeleteAndDisableRequiredProperty', 'breaking', 'one-rule'],
  ['required-properties/response-new-base.json', 'required-properties/response-new-revision.json', 'none', 'TestBreaking_RespBodyNewRequiredProperty'],
  ['required-properties/response-new-revision.json', 'required-properties/response-new-base.json', 'breaking', 'TestBreaking_RespBodyDeleteRequiredProperty'],
  ['required-properties/response-revision.json', 'required-properties/response-base.json', 'none', 'TestBreaking_RespBodyRequiredPropertyEnabled'],
  ['required-properties/write-only-base.yaml', 'required-properties/write-only-revision.yaml', 'none', 'TestBreaking_WriteOnlyPropertyRequiredDisabled'],
  ['required-properties/write-only-changed-base.yaml', 'required-properties/write-only-changed-revision.yaml', 'none', 'TestBreaking_RequiredPropertyWriteOnlyEnabled', 'breaking', 'visibility'],
  ['required-properties/write-only-delete-base.yaml', 'required-properties/write-only-delete-revision.yaml', 'warning', 'TestBreaking_WriteOnlyDeleteRequiredProperty'],
  ['required-properties/write-only-delete-partial-base.yaml', 'required-properties/write-only-delete-partial-revision.yaml', 'warning', 'TestBreaking_WriteOnlyDeleteNonRequiredProperty'],
  ['response-media-type-base.yaml', 'response-media-type-revision.yaml', 'breaking', 'TestBreaking_ResponseDeleteMediaType'],
  ['response-media-type-revision.yaml', 'response-media-type-base.yaml', 'none', 'TestBreaking_ResponseAddMediaType'],
  ['servers/baseswagger.json', 'servers/revisionswagger.json', 'none', 'TestBreaking_Servers'],  // allOf: oasdiff judges an allOf part added or removed by its $ref; we judge the merged schema.
  ['checker/request_property_all_of_added_base.yaml', 'checker/request_property_all_of_added_revision.yaml', 'breaking', 'TestRequestPropertyAllOfAdded', 'none', 'allof-merged'],
  ['checker/request_property_all_of_removed_base.yaml', 'checker/request_property_all_of_removed_revision.yaml', 'warning', 'TestRequestPropertyAllOfRemoved'],
  ['checker/request_property_all_of_annotation_only_added_base.yaml', 'checker/request_property_all_of_annotation_only_added_revision.yaml', 'info', 'TestRequestPropertyAllOfAdded_AnnotationOnly_EmitsInfo'],
  ['checker/request_property_all_of_annotation_only_added_at_property_base.yaml', 'checker/request_property_all_of_annotation_only_added_at_property_revision.yaml', 'info', 'TestRequestPropertyAllOfAdded_AnnotationOnly_AtProperty_EmitsInfo'],
  ['checker/request_property_all_of_inline_added_base.yaml', 'checker/request_property_all_of_inline_added_revision.yaml', 'breaking', 'TestRequestPropertyAllOfAdded_WithSources_Inline', 'info', 'allof-merged'],
  ['checker/response_property_all_of_added_base.yaml', 'checker/response_property_all_of_added_revision.yaml', 'info', 'TestResponsePropertyAllOfAdded'],
  ['checker/response_property_all_of_removed_base.yaml', 'checker/response_property_all_of_removed_revision.yaml', 'info', 'TestResponsePropertyAllOfRemoved'],
  ['checker/response_property_all_of_annotation_only_added_base.yaml', 'checker/response_property_all_of_annotation_only_added_revision.yaml', 'info', 'TestResponsePropertyAllOfAdded_AnnotationOnly_EmitsInfoWithDistinctId'],
  ['checker/response_property_all_of_inline_added_base.yaml', 'checker/response_property_all_of_inline_added_revision.yaml', 'info', 'TestResponsePropertyAllOfAdded_WithSources_Inline'],
  // default values
  ['checker/request_body_default_value_changed_base.yaml', 'checker/request_body_default_value_changed_revision.yaml', 'info', 'TestRequestBodyDefaultValueChanged', 'breaking', 'one-rule'],
  ['checker/response_property_default_value_changed_base.yaml', 'checker/response_property_default_value_changed_revision.yaml', 'info', 'TestResponsePropertyDefaultValueUpdatedCheck'],
  ['checker/request_parameter_default_value_changed_base.yaml', 'checker/request_parameter_default_value_changed_revision.yaml', 'breaking', 'TestRequestParameterDefaultValueChanged', 'warning', 'policy-warning'],
  ['checker/request_parameter_default_value_changed_base_renamed.yaml', 'checker/request_parameter_default_value_changed_revision_renamed.yaml', 'breaking', 'TestRequestParameterDefaultValueChangedAndRenamedParameter', 'none', 'policy-warning'],
];

/**
 * Pairs that oasdiff's tests build from one file by editing it in Go (`s2.Spec...WriteOnly = true`): the same edit
 * written as JSON pointers, applied to the base (`base`) or the head (`head`) copy; `undefined` deletes the key.
 */
type Edit = ['base' | 'head', string, unknown];
type MutatedRow = [string, Edit[], Verdict, string, Verdict?, Reason?];
const REQ = '/paths/~1api~1v1.0~1groups/post/requestBody/content/application~1json/schema/properties';
const GROUP = '/components/schemas/GroupView/properties/data/properties';
const BODY_DEFAULTS = ['/paths/~1products/post/requestBody/content/text~1plain/schema/default', '/paths/~1products/post/requestBody/content/application~1json/schema/properties/price/default'];
const RESPONSE_DEFAULTS = ['/paths/~1api~1v1.0~1groups/post/responses/404/content/text~1plain/schema/default', `${GROUP}/created/default`];
const QUERY_DEFAULT = '/paths/~1api~1v1.0~1groups/post/parameters/1/schema/default';
const MUTATED: MutatedRow[] = [
  ['checker/request_property_default_value_changed_base.yaml', [['head', '/paths/~1products/post/requestBody/content/application~1json/schema/properties/price/default', 20]], 'info', 'TestRequestPropertyDefaultValueChanged'],
  ['checker/request_body_default_value_changed_base.yaml', BODY_DEFAULTS.map((p) => ['base', p, undefined]), 'info', 'TestRequestBodyDefaultValueAdded'],
  ['checker/request_body_default_value_changed_base.yaml', BODY_DEFAULTS.map((p) => ['head', p, undefined]), 'info', 'TestRequestBodyDefaultValueRemoving'],
  ['checker/response_property_default_value_changed_base.yaml', [['head', RESPONSE_DEFAULTS[0]!, 'new default value']], 'info', 'TestResponseSchemaDefaultValueUpdatedCheck'],
  ['checker/response_property_default_value_changed_base.yaml', RESPONSE_DEFAULTS.map((p) => ['base', p, undefined]), 'info', 'TestResponsePropertyDefaultValueAddedCheck'],
  ['checker/response_property_default_value_changed_base.yaml', RESPONSE_DEFAULTS.map((p) => ['head', p, undefined]), 'info', 'TestResponsePropertyDefaultValueRemovedCheck'],
  ['checker/request_parameter_default_value_changed_base.yaml', [['base', QUERY_DEFAULT, undefined]], 'breaking', 'TestRequestParameterDefaultValueAdded', 'warning', 'policy-warning'],
  ['checker/request_parameter_default_value_changed_base.yaml', [['head', QUERY_DEFAULT, undefined]], 'breaking', 'TestRequestParameterDefaultValueRemoved', 'warning', 'policy-warning'],
  // readOnly / writeOnly in a request
  ['checker/request_optional_property_write_only_read_only_base.yaml', [['head', `${REQ}/name/writeOnly`, true]], 'info', 'TestRequestOptionalPropertyBecameWriteOnly'],
  ['checker/request_optional_property_write_only_read_only_base.yaml', [['base', `${REQ}/name/writeOnly`, true]], 'info', 'TestRequestOptionalPropertyBecameNotWriteOnly'],
  ['checker/request_optional_property_write_only_read_only_base.yaml', [['head', `${REQ}/name/readOnly`, true]], 'info', 'TestRequestOptionalPropertyBecameReadOnly'],
  ['checker/request_optional_property_write_only_read_only_base.yaml', [['base', `${REQ}/name/readOnly`, true]], 'info', 'TestRequestOptionalPropertyBecameNonReadOnly'],
  ['checker/request_optional_property_write_only_read_only_base.yaml', [['head', `${REQ}/id/writeOnly`, true]], 'info', 'TestRequestRequiredPropertyBecameWriteOnly'],
  ['checker/request_optional_property_write_only_read_only_base.yaml', [['base', `${REQ}/id/writeOnly`, true]], 'info', 'TestRequestRequiredPropertyBecameNotWriteOnly'],
  ['checker/request_optional_property_write_only_read_only_base.yaml', [['head', `${REQ}/id/readOnly`, true]], 'info', 'TestRequestRequiredPropertyBecameReadOnly'],
  ['checker/request_optional_property_write_only_read_only_base.yaml', [['base', `${REQ}/id/readOnly`, true]], 'info', 'TestRequestRequiredPropertyBecameNonReadOnly', 'breaking', 'visibility'],
  // readOnly / writeOnly in a response
  ['checker/response_optional_property_write_only_read_only_base.yaml', [['head', `${GROUP}/name/writeOnly`, true]], 'info', 'TestResponseOptionalPropertyBecameWriteOnly'],
  ['checker/response_optional_property_write_only_read_only_base.yaml', [['head', `${GROUP}/writeOnlyName/writeOnly`, false]], 'info', 'TestResponseOptionalPropertyBecameNotWriteOnly'],
  ['checker/response_optional_property_write_only_read_only_base.yaml', [['base', `${GROUP}/id/readOnly`, false]], 'info', 'TestResponseOptionalPropertyBecameReadOnly'],
  ['checker/response_optional_property_write_only_read_only_base.yaml', [['head', `${GROUP}/id/readOnly`, false]], 'info', 'TestResponseOptionalPropertyBecameNonReadOnly'],
  ['checker/response_required_property_write_only_read_only_base.yaml', [['head', `${GROUP}/name/writeOnly`, true]], 'info', 'TestResponseRequiredPropertyBecameWriteOnly', 'breaking', 'visibility'],
  ['checker/response_required_property_write_only_read_only_base.yaml', [['head', `${GROUP}/writeOnlyName/writeOnly`, false]], 'warning', 'TestResponseRequiredPropertyBecameNotWriteOnly'],
  ['checker/response_required_property_write_only_read_only_base.yaml', [['base', `${GROUP}/id/readOnly`, false]], 'info', 'TestResponseRequiredPropertyBecameReadOnly'],
  ['checker/response_required_property_write_only_read_only_base.yaml', [['head', `${GROUP}/id/readOnly`, false]], 'info', 'TestResponseRequiredPropertyBecameNonReadOnly'],
];

function edit(document: unknown, pointer: string, value: unknown): void {
  const tokens = pointer.slice(1).split('/').map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
  let node = document as Record<string, unknown>;
  for (const t of tokens.slice(0, -1)) {
    if (typeof node[t] !== 'object' || node[t] === null) throw new Error(`no ${t} on the way to ${pointer}`);
    node = node[t] as Record<string, unknown>;
  }
  const last = tokens.at(-1)!;
  if (value === undefined) {
    if (!(last in node)) throw new Error(`nothing to delete at ${pointer}`);
    delete node[last];
  } else node[last] = value;
}

function verdict(changes: Change[]): Verdict {
  return NAMES[Math.max(0, ...changes.filter((c) => !LEFT_OUT.has(c.id)).map((c) => RANK[c.level]))]!;
}

async function ours(base: string, head: string): Promise<Verdict> {
  const [b, h] = await Promise.all([loadOpenApiDocument(path.join(DATA!, base)), loadOpenApiDocument(path.join(DATA!, head))]);
  return verdict(diffModels(b, h));
}

async function oursEdited(file: string, edits: Edit[]): Promise<Verdict> {
  const loaded = await loadOpenApiDocument(path.join(DATA!, file));
  const sides = { base: structuredClone(loaded.document), head: structuredClone(loaded.document) };
  for (const [side, pointer, value] of edits) edit(sides[side], pointer, value);
  return verdict(diffModels({ document: sides.base }, { document: sides.head }));
}

describe.skipIf(SKIP !== null)('the oasdiff corpus (OASDIFF_DATA)', () => {
  it('every pair is judged as the table says: oasdiff\'s verdict, or a documented disagreement', async () => {
    const wrong: string[] = [];
    const all: Array<{ name: string; got: Verdict; row: [Verdict, string, Verdict?, Reason?] }> = [];
    for (const [base, head, ...row] of ROWS) all.push({ name: `${base} → ${head}`, got: await ours(base, head), row });
    for (const [file, edits, ...row] of MUTATED) all.push({ name: `${file} edited (${edits.map((e) => `${e[0]} ${e[1].split('/').slice(-2).join('/')}`).join(', ')})`, got: await oursEdited(file, edits), row });
    let agree = 0;
    for (const { name, got, row: [oasdiff, test, disagree, why] } of all) {
      const expected = disagree ?? oasdiff;
      if ((got === 'breaking') !== (expected === 'breaking')) wrong.push(`${name} (${test}): expected ${expected}${why ? ` [${why}]` : ''}, got ${got}`);
      if ((got === 'breaking') === (oasdiff === 'breaking')) agree += 1;
    }
    expect(wrong).toEqual([]);
    const reasons = all.map((a) => a.row[3]).filter((w) => w !== undefined);
    expect(agree).toBe(all.length - reasons.length);
    const byReason = [...new Set(reasons)].sort().map((w) => `${w} ${reasons.filter((r) => r === w).length}`).join(', ');
    console.log(`oasdiff corpus (${SOURCE.repo} at ${SOURCE.commit.slice(0, 8)}): breaking yes/no agrees on ${agree}/${all.length} pairs; ${reasons.length} documented disagreements (${byReason})`);
  });
});

describe('the oasdiff table', () => {
  it('every reason for a disagreement is documented in docs/diff-checks.md', () => {
    const doc = readFileSync(path.join(ROOT, 'docs/diff-checks.md'), 'utf8');
    for (const why of new Set([...ROWS.map((r) => r[5]), ...MUTATED.map((r) => r[5])].filter((w) => w !== undefined))) expect(doc).toContain(`\`${why}\``);
  });
});
