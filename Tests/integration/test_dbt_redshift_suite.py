# SPDX-License-Identifier: Apache-2.0
"""dbt-redshift's own functional test suite (vendored in dbt_redshift/tests, the adapter's
v1.9.0) against `slicehouse serve`, over TLS with dbt-redshift's default sslmode
(issue 77). dbt_redshift/run.py runs it in a pytest process of its own; this test holds
the outcome of every test.

The ratchet: every test in EXPECTED_PASS passes, the known failures fail (a strict
expected failure: when one starts to pass, move it to EXPECTED_PASS), upstream's own
skips are skipped, and every test the suite has is named in one of the three lists (so a
test that appears or goes away is noticed). The classes that log in through AWS IAM are
deselected by run.py and counted in NEEDS_AWS.

About ten minutes on two cores. Skipped when dbt or dbt-tests-adapter is not installed,
unless CI=true, where that is a failure.
"""
import importlib.util
import os

import pytest

from server_support import CI

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location("dbt_redshift_run", os.path.join(HERE, "dbt_redshift", "run.py"))
dbt_redshift = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(dbt_redshift)

# test -> why it fails
KNOWN_FAILURES: dict[str, str] = {}

# Upstream's own @pytest.mark.skip (flaky, or waiting for dbt-core changes).
UPSTREAM_SKIPS = [
    "tests/functional/adapter/test_basic.py::TestDocsGenReferencesRedshift::test_references",
    "tests/functional/adapter/test_basic.py::TestDocsGenerateRedshift::test_run_and_generate",
    "tests/functional/adapter/test_basic.py::TestDocsGenerateRedshift::test_run_and_generate_no_compile",
    "tests/functional/adapter/test_query_comment.py::TestMacroArgsQueryCommentsRedshift::test_matches_comment",
    "tests/functional/test_columns_in_relation.py::TestBehaviorFlagFiresOnce::test_warning_fires_once",
    "tests/functional/test_columns_in_relation.py::TestColumnsInRelationBehaviorFlagOn::test_columns_in_relation",
]

EXPECTED_PASS = [
    "tests/functional/adapter/backup_tests/test_backup_table.py::TestBackupTableOption::test_setting_reflects_config_option[backup_is_false-False]",
    "tests/functional/adapter/backup_tests/test_backup_table.py::TestBackupTableOption::test_setting_reflects_config_option[backup_is_true-True]",
    "tests/functional/adapter/backup_tests/test_backup_table.py::TestBackupTableOption::test_setting_reflects_config_option[backup_is_true_view-True]",
    "tests/functional/adapter/backup_tests/test_backup_table.py::TestBackupTableOption::test_setting_reflects_config_option[backup_is_undefined-True]",
    "tests/functional/adapter/backup_tests/test_backup_table.py::TestBackupTableProjectDefault::test_setting_defaults_to_project_option[backup_is_true-True]",
    "tests/functional/adapter/backup_tests/test_backup_table.py::TestBackupTableProjectDefault::test_setting_defaults_to_project_option[backup_is_undefined-False]",
    "tests/functional/adapter/backup_tests/test_backup_table.py::TestBackupTableSyntax::test_backup_predicate_precedes_secondary_predicates[syntax_with_distkey-diststyle key distkey]",
    "tests/functional/adapter/backup_tests/test_backup_table.py::TestBackupTableSyntax::test_backup_predicate_precedes_secondary_predicates[syntax_with_sortkey-compound sortkey]",
    "tests/functional/adapter/catalog_tests/test_get_catalog.py::TestGetCatalog::test_get_one_catalog_by_relations",
    "tests/functional/adapter/catalog_tests/test_get_catalog.py::TestGetCatalog::test_get_one_catalog_by_schemas",
    "tests/functional/adapter/catalog_tests/test_relation_types.py::TestCatalogRelationTypes::test_relation_types_populate_correctly[model.test.my_materialized_view-MATERIALIZED VIEW]",
    "tests/functional/adapter/catalog_tests/test_relation_types.py::TestCatalogRelationTypes::test_relation_types_populate_correctly[model.test.my_table-BASE TABLE]",
    "tests/functional/adapter/catalog_tests/test_relation_types.py::TestCatalogRelationTypes::test_relation_types_populate_correctly[model.test.my_view-VIEW]",
    "tests/functional/adapter/catalog_tests/test_relation_types.py::TestCatalogRelationTypes::test_relation_types_populate_correctly[seed.test.my_seed-BASE TABLE]",
    "tests/functional/adapter/dbt_clone/test_dbt_clone.py::TestRedshiftCloneNotPossible::test_can_clone_false",
    "tests/functional/adapter/dbt_show/test_dbt_show.py::TestRedshiftShowLimit::test_limit[args0-5]",
    "tests/functional/adapter/dbt_show/test_dbt_show.py::TestRedshiftShowLimit::test_limit[args1-3]",
    "tests/functional/adapter/dbt_show/test_dbt_show.py::TestRedshiftShowLimit::test_limit[args2-7]",
    "tests/functional/adapter/dbt_show/test_dbt_show.py::TestRedshiftShowSqlHeader::test_sql_header",
    "tests/functional/adapter/dbt_show/test_dbt_show.py::TestShowDoesNotHandleDoubleLimit::test_double_limit_throws_syntax_error",
    "tests/functional/adapter/empty/test_empty.py::TestRedshiftEmpty::test_run_with_empty",
    "tests/functional/adapter/empty/test_empty.py::TestRedshiftEmptyInlineSourceRef::test_run_with_empty",
    "tests/functional/adapter/incremental/test_incremental_merge_exclude_columns.py::TestMergeExcludeColumns::test__merge_exclude_columns",
    "tests/functional/adapter/incremental/test_incremental_microbatch.py::TestSnowflakeMicrobatch::test_run_with_event_time",
    "tests/functional/adapter/incremental/test_incremental_on_schema_change.py::TestIncrementalOnSchemaChange::test_run_incremental_append_new_columns",
    "tests/functional/adapter/incremental/test_incremental_on_schema_change.py::TestIncrementalOnSchemaChange::test_run_incremental_fail_on_schema_change",
    "tests/functional/adapter/incremental/test_incremental_on_schema_change.py::TestIncrementalOnSchemaChange::test_run_incremental_ignore",
    "tests/functional/adapter/incremental/test_incremental_on_schema_change.py::TestIncrementalOnSchemaChange::test_run_incremental_sync_all_columns",
    "tests/functional/adapter/incremental/test_incremental_predicates.py::TestIncrementalPredicatesDeleteInsertRedshift::test__incremental_predicates",
    "tests/functional/adapter/incremental/test_incremental_predicates.py::TestIncrementalPredicatesMergeRedshift::test__incremental_predicates",
    "tests/functional/adapter/incremental/test_incremental_predicates.py::TestPredicatesDeleteInsertRedshift::test__incremental_predicates",
    "tests/functional/adapter/incremental/test_incremental_predicates.py::TestPredicatesMergeRedshift::test__incremental_predicates",
    "tests/functional/adapter/incremental/test_incremental_run_result.py::TestBaseIncrementalNotSchemaChange::test_incremental_not_schema_change",
    "tests/functional/adapter/incremental/test_incremental_run_result.py::TestIncrementalRunResultRedshift::test_incremental",
    "tests/functional/adapter/incremental/test_incremental_strategies.py::test_basic",
    "tests/functional/adapter/incremental/test_incremental_unique_id.py::TestUniqueKeyDeleteInsertRedshift::test__bad_unique_key",
    "tests/functional/adapter/incremental/test_incremental_unique_id.py::TestUniqueKeyDeleteInsertRedshift::test__bad_unique_key_list",
    "tests/functional/adapter/incremental/test_incremental_unique_id.py::TestUniqueKeyDeleteInsertRedshift::test__duplicated_unary_unique_key_list",
    "tests/functional/adapter/incremental/test_incremental_unique_id.py::TestUniqueKeyDeleteInsertRedshift::test__empty_str_unique_key",
    "tests/functional/adapter/incremental/test_incremental_unique_id.py::TestUniqueKeyDeleteInsertRedshift::test__empty_unique_key_list",
    "tests/functional/adapter/incremental/test_incremental_unique_id.py::TestUniqueKeyDeleteInsertRedshift::test__no_unique_keys",
    "tests/functional/adapter/incremental/test_incremental_unique_id.py::TestUniqueKeyDeleteInsertRedshift::test__one_unique_key",
    "tests/functional/adapter/incremental/test_incremental_unique_id.py::TestUniqueKeyDeleteInsertRedshift::test__trinary_unique_key_list",
    "tests/functional/adapter/incremental/test_incremental_unique_id.py::TestUniqueKeyDeleteInsertRedshift::test__trinary_unique_key_list_no_update",
    "tests/functional/adapter/incremental/test_incremental_unique_id.py::TestUniqueKeyDeleteInsertRedshift::test__unary_unique_key_list",
    "tests/functional/adapter/incremental/test_incremental_unique_id.py::TestUniqueKeyRedshift::test__bad_unique_key",
    "tests/functional/adapter/incremental/test_incremental_unique_id.py::TestUniqueKeyRedshift::test__bad_unique_key_list",
    "tests/functional/adapter/incremental/test_incremental_unique_id.py::TestUniqueKeyRedshift::test__duplicated_unary_unique_key_list",
    "tests/functional/adapter/incremental/test_incremental_unique_id.py::TestUniqueKeyRedshift::test__empty_str_unique_key",
    "tests/functional/adapter/incremental/test_incremental_unique_id.py::TestUniqueKeyRedshift::test__empty_unique_key_list",
    "tests/functional/adapter/incremental/test_incremental_unique_id.py::TestUniqueKeyRedshift::test__no_unique_keys",
    "tests/functional/adapter/incremental/test_incremental_unique_id.py::TestUniqueKeyRedshift::test__one_unique_key",
    "tests/functional/adapter/incremental/test_incremental_unique_id.py::TestUniqueKeyRedshift::test__trinary_unique_key_list",
    "tests/functional/adapter/incremental/test_incremental_unique_id.py::TestUniqueKeyRedshift::test__trinary_unique_key_list_no_update",
    "tests/functional/adapter/incremental/test_incremental_unique_id.py::TestUniqueKeyRedshift::test__unary_unique_key_list",
    "tests/functional/adapter/materialized_view_tests/test_drop_cascade.py::test_drop_cascade",
    "tests/functional/adapter/materialized_view_tests/test_materialized_views.py::TestRedshiftMaterializedViewChangesApply::test_change_is_applied_via_alter",
    "tests/functional/adapter/materialized_view_tests/test_materialized_views.py::TestRedshiftMaterializedViewChangesApply::test_change_is_applied_via_alter_str_true",
    "tests/functional/adapter/materialized_view_tests/test_materialized_views.py::TestRedshiftMaterializedViewChangesApply::test_change_is_applied_via_replace",
    "tests/functional/adapter/materialized_view_tests/test_materialized_views.py::TestRedshiftMaterializedViewChangesApply::test_full_refresh_occurs_with_changes",
    "tests/functional/adapter/materialized_view_tests/test_materialized_views.py::TestRedshiftMaterializedViewChangesContinue::test_change_is_not_applied_via_alter",
    "tests/functional/adapter/materialized_view_tests/test_materialized_views.py::TestRedshiftMaterializedViewChangesContinue::test_change_is_not_applied_via_replace",
    "tests/functional/adapter/materialized_view_tests/test_materialized_views.py::TestRedshiftMaterializedViewChangesContinue::test_full_refresh_occurs_with_changes",
    "tests/functional/adapter/materialized_view_tests/test_materialized_views.py::TestRedshiftMaterializedViewChangesFail::test_change_is_not_applied_via_alter",
    "tests/functional/adapter/materialized_view_tests/test_materialized_views.py::TestRedshiftMaterializedViewChangesFail::test_change_is_not_applied_via_replace",
    "tests/functional/adapter/materialized_view_tests/test_materialized_views.py::TestRedshiftMaterializedViewChangesFail::test_full_refresh_occurs_with_changes",
    "tests/functional/adapter/materialized_view_tests/test_materialized_views.py::TestRedshiftMaterializedViewWithBackupConfig::test_running_mv_with_backup_false_is_idempotent",
    "tests/functional/adapter/materialized_view_tests/test_materialized_views.py::TestRedshiftMaterializedViewWithBackupConfig::test_running_mv_with_backup_false_succeeds",
    "tests/functional/adapter/materialized_view_tests/test_materialized_views.py::TestRedshiftMaterializedViewsBasic::test_materialized_view_create",
    "tests/functional/adapter/materialized_view_tests/test_materialized_views.py::TestRedshiftMaterializedViewsBasic::test_materialized_view_create_idempotent",
    "tests/functional/adapter/materialized_view_tests/test_materialized_views.py::TestRedshiftMaterializedViewsBasic::test_materialized_view_full_refresh",
    "tests/functional/adapter/materialized_view_tests/test_materialized_views.py::TestRedshiftMaterializedViewsBasic::test_materialized_view_only_updates_after_refresh",
    "tests/functional/adapter/materialized_view_tests/test_materialized_views.py::TestRedshiftMaterializedViewsBasic::test_materialized_view_replaces_table",
    "tests/functional/adapter/materialized_view_tests/test_materialized_views.py::TestRedshiftMaterializedViewsBasic::test_materialized_view_replaces_view",
    "tests/functional/adapter/materialized_view_tests/test_materialized_views.py::TestRedshiftMaterializedViewsBasic::test_table_replaces_materialized_view",
    "tests/functional/adapter/materialized_view_tests/test_materialized_views.py::TestRedshiftMaterializedViewsBasic::test_view_replaces_materialized_view",
    "tests/functional/adapter/sources_freshness_tests/test_get_relation_last_modified.py::TestGetLastRelationModified::test_get_last_relation_modified[test_source.test_source_last_modified-error-False]",
    "tests/functional/adapter/sources_freshness_tests/test_get_relation_last_modified.py::TestGetLastRelationModified::test_get_last_relation_modified[test_source.test_source_no_last_modified-pass-True]",
    "tests/functional/adapter/sources_freshness_tests/test_get_relation_last_modified.py::TestGetLastRelationModifiedBatch::test_get_last_relation_modified_batch",
    "tests/functional/adapter/test_adapter_methods.py::TestRedshiftAdapterMethod::test_adapter_methods",
    "tests/functional/adapter/test_basic.py::TestBaseAdapterMethod::test_adapter_methods",
    "tests/functional/adapter/test_basic.py::TestEmptyRedshift::test_empty",
    "tests/functional/adapter/test_basic.py::TestEphemeralRedshift::test_ephemeral",
    "tests/functional/adapter/test_basic.py::TestGenericTestsRedshift::test_generic_tests",
    "tests/functional/adapter/test_basic.py::TestIncrementalRedshift::test_incremental",
    "tests/functional/adapter/test_basic.py::TestSimpleMaterializationsRedshift::test_base",
    "tests/functional/adapter/test_basic.py::TestSingularTestsEphemeralRedshift::test_singular_tests_ephemeral",
    "tests/functional/adapter/test_basic.py::TestSingularTestsRedshift::test_singular_tests",
    "tests/functional/adapter/test_basic.py::TestSnapshotCheckColsRedshift::test_snapshot_check_cols",
    "tests/functional/adapter/test_basic.py::TestSnapshotTimestampRedshift::test_snapshot_timestamp",
    "tests/functional/adapter/test_basic.py::TestViewRerun::test_rerunning_dependent_view_refreshes",
    "tests/functional/adapter/test_changing_relation_type.py::TestRedshiftChangeRelationTypes::test_changing_materialization_changes_relation_type",
    "tests/functional/adapter/test_column_types.py::TestRedshiftColumnTypes::test_run_and_test",
    "tests/functional/adapter/test_constraints.py::TestRedshiftConstraintQuotedColumn::test__constraints_ddl",
    "tests/functional/adapter/test_constraints.py::TestRedshiftIncrementalConstraintsColumnsEqual::test__constraints_correct_column_data_types",
    "tests/functional/adapter/test_constraints.py::TestRedshiftIncrementalConstraintsColumnsEqual::test__constraints_wrong_column_data_types",
    "tests/functional/adapter/test_constraints.py::TestRedshiftIncrementalConstraintsColumnsEqual::test__constraints_wrong_column_names",
    "tests/functional/adapter/test_constraints.py::TestRedshiftIncrementalConstraintsColumnsEqual::test__constraints_wrong_column_order",
    "tests/functional/adapter/test_constraints.py::TestRedshiftIncrementalConstraintsRollback::test__constraints_enforcement_rollback",
    "tests/functional/adapter/test_constraints.py::TestRedshiftIncrementalConstraintsRuntimeDdlEnforcement::test__constraints_ddl",
    "tests/functional/adapter/test_constraints.py::TestRedshiftModelConstraintsRuntimeEnforcement::test__model_constraints_ddl",
    "tests/functional/adapter/test_constraints.py::TestRedshiftTableConstraintsColumnsEqual::test__constraints_correct_column_data_types",
    "tests/functional/adapter/test_constraints.py::TestRedshiftTableConstraintsColumnsEqual::test__constraints_wrong_column_data_types",
    "tests/functional/adapter/test_constraints.py::TestRedshiftTableConstraintsColumnsEqual::test__constraints_wrong_column_names",
    "tests/functional/adapter/test_constraints.py::TestRedshiftTableConstraintsColumnsEqual::test__constraints_wrong_column_order",
    "tests/functional/adapter/test_constraints.py::TestRedshiftTableConstraintsRollback::test__constraints_enforcement_rollback",
    "tests/functional/adapter/test_constraints.py::TestRedshiftTableConstraintsRuntimeDdlEnforcement::test__constraints_ddl",
    "tests/functional/adapter/test_constraints.py::TestRedshiftViewConstraintsColumnsEqual::test__constraints_correct_column_data_types",
    "tests/functional/adapter/test_constraints.py::TestRedshiftViewConstraintsColumnsEqual::test__constraints_wrong_column_data_types",
    "tests/functional/adapter/test_constraints.py::TestRedshiftViewConstraintsColumnsEqual::test__constraints_wrong_column_names",
    "tests/functional/adapter/test_constraints.py::TestRedshiftViewConstraintsColumnsEqual::test__constraints_wrong_column_order",
    "tests/functional/adapter/test_grants.py::TestIncrementalGrantsRedshift::test_incremental_grants",
    "tests/functional/adapter/test_grants.py::TestInvalidGrantsRedshift::test_view_table_grants",
    "tests/functional/adapter/test_grants.py::TestModelGrantsRedshift::test_view_table_grants",
    "tests/functional/adapter/test_grants.py::TestSeedGrantsRedshift::test_seed_grants",
    "tests/functional/adapter/test_grants.py::TestSnapshotGrantsRedshift::test_snapshot_grants",
    "tests/functional/adapter/test_late_binding_view.py::TestLateBindingView::test_late_binding_view_query",
    "tests/functional/adapter/test_macros.py::TestRedshift::test_inherited_macro",
    "tests/functional/adapter/test_persist_docs.py::TestPersistDocs::test_has_comments_pglike",
    "tests/functional/adapter/test_persist_docs.py::TestPersistDocsColumnMissing::test_missing_column",
    "tests/functional/adapter/test_persist_docs.py::TestPersistDocsCommentOnQuotedColumn::test_quoted_column_comments",
    "tests/functional/adapter/test_persist_docs.py::TestPersistDocsLateBinding::test_comment_on_late_binding_view",
    "tests/functional/adapter/test_persist_docs.py::TestPersistDocsWithMaterializedView::test_has_comments_pglike",
    "tests/functional/adapter/test_query_comment.py::TestEmptyQueryCommentsRedshift::test_matches_comment",
    "tests/functional/adapter/test_query_comment.py::TestMacroInvalidQueryCommentsRedshift::test_run_assert_comments",
    "tests/functional/adapter/test_query_comment.py::TestMacroQueryCommentsRedshift::test_matches_comment",
    "tests/functional/adapter/test_query_comment.py::TestNullQueryCommentsRedshift::test_matches_comment",
    "tests/functional/adapter/test_query_comment.py::TestQueryCommentsRedshift::test_matches_comment",
    "tests/functional/adapter/test_relation_name.py::TestAdapterDDL::test_long_name_succeeds",
    "tests/functional/adapter/test_relation_name.py::TestAdapterDDLExceptions::test_too_long_of_name_fails",
    "tests/functional/adapter/test_simple_seed.py::TestSimpleSeedColumnOverride::test_redshift_simple_seed_with_column_override_redshift",
    "tests/functional/adapter/test_simple_seed.py::TestSimpleSeedColumnOverride::test_simple_seed_with_column_override",
    "tests/functional/adapter/test_simple_seed.py::TestSimpleSeedDiststyleAll::test_simple_seed_with_diststyle_all",
    "tests/functional/adapter/test_simple_snapshot.py::TestSnapshot::test_deletes_are_captured_by_snapshot",
    "tests/functional/adapter/test_simple_snapshot.py::TestSnapshot::test_inserts_are_captured_by_snapshot",
    "tests/functional/adapter/test_simple_snapshot.py::TestSnapshot::test_new_column_captured_by_snapshot",
    "tests/functional/adapter/test_simple_snapshot.py::TestSnapshot::test_revives_are_captured_by_snapshot",
    "tests/functional/adapter/test_simple_snapshot.py::TestSnapshot::test_updates_are_captured_by_snapshot",
    "tests/functional/adapter/test_simple_snapshot.py::TestSnapshotCheck::test_column_selection_is_reflected_in_snapshot",
    "tests/functional/adapter/test_store_test_failures.py::TestRedshiftTestStoreTestFailures::test__store_and_assert",
    "tests/functional/adapter/test_store_test_failures.py::TestStoreTestFailures::test__store_and_assert",
    "tests/functional/adapter/test_store_test_failures.py::TestStoreTestFailuresAsExceptions::test_tests_run_unsuccessfully_and_raise_appropriate_exception",
    "tests/functional/adapter/test_store_test_failures.py::TestStoreTestFailuresAsGeneric::test_tests_run_successfully_and_are_stored_as_expected",
    "tests/functional/adapter/test_store_test_failures.py::TestStoreTestFailuresAsInteractions::test_tests_run_successfully_and_are_stored_as_expected",
    "tests/functional/adapter/test_store_test_failures.py::TestStoreTestFailuresAsProjectLevelEphemeral::test_tests_run_successfully_and_are_stored_as_expected",
    "tests/functional/adapter/test_store_test_failures.py::TestStoreTestFailuresAsProjectLevelOff::test_tests_run_successfully_and_are_stored_as_expected",
    "tests/functional/adapter/test_store_test_failures.py::TestStoreTestFailuresAsProjectLevelView::test_tests_run_successfully_and_are_stored_as_expected",
    "tests/functional/adapter/unit_testing/test_unit_testing.py::TestRedshiftUnitTestCaseInsensitivity::test_case_insensitivity",
    "tests/functional/adapter/unit_testing/test_unit_testing.py::TestRedshiftUnitTestCsvNone::test_nones_handled_dict",
    "tests/functional/adapter/unit_testing/test_unit_testing.py::TestRedshiftUnitTestDictNone::test_nones_handled_dict",
    "tests/functional/adapter/unit_testing/test_unit_testing.py::TestRedshiftUnitTestInvalidInput::test_invalid_input",
    "tests/functional/adapter/unit_testing/test_unit_testing.py::TestRedshiftUnitTestingTooManyNonesFails::test_invalid_input",
    "tests/functional/adapter/unit_testing/test_unit_testing.py::TestRedshiftUnitTestingTypes::test_unit_test_data_type",
    "tests/functional/adapter/utils/test_data_types.py::TestTypeBigInt::test_check_types_assert_match",
    "tests/functional/adapter/utils/test_data_types.py::TestTypeBoolean::test_check_types_assert_match",
    "tests/functional/adapter/utils/test_data_types.py::TestTypeFloat::test_check_types_assert_match",
    "tests/functional/adapter/utils/test_data_types.py::TestTypeInt::test_check_types_assert_match",
    "tests/functional/adapter/utils/test_data_types.py::TestTypeNumeric::test_check_types_assert_match",
    "tests/functional/adapter/utils/test_data_types.py::TestTypeString::test_check_types_assert_match",
    "tests/functional/adapter/utils/test_data_types.py::TestTypeTimestamp::test_check_types_assert_match",
    "tests/functional/adapter/utils/test_timestamps.py::TestCurrentTimestampRedshift::test_current_timestamps",
    "tests/functional/adapter/utils/test_utils.py::TestAnyValue::test_build_assert_equal",
    "tests/functional/adapter/utils/test_utils.py::TestArrayAppend::test_build_assert_equal",
    "tests/functional/adapter/utils/test_utils.py::TestArrayAppend::test_expected_actual",
    "tests/functional/adapter/utils/test_utils.py::TestArrayConcat::test_build_assert_equal",
    "tests/functional/adapter/utils/test_utils.py::TestArrayConcat::test_expected_actual",
    "tests/functional/adapter/utils/test_utils.py::TestArrayConstruct::test_build_assert_equal",
    "tests/functional/adapter/utils/test_utils.py::TestArrayConstruct::test_expected_actual",
    "tests/functional/adapter/utils/test_utils.py::TestBoolOr::test_build_assert_equal",
    "tests/functional/adapter/utils/test_utils.py::TestCast::test_build_assert_equal",
    "tests/functional/adapter/utils/test_utils.py::TestCastBoolToText::test_build_assert_equal",
    "tests/functional/adapter/utils/test_utils.py::TestConcat::test_build_assert_equal",
    "tests/functional/adapter/utils/test_utils.py::TestCurrentTimestamp::test_current_timestamp_matches_utc",
    "tests/functional/adapter/utils/test_utils.py::TestCurrentTimestamp::test_current_timestamp_type",
    "tests/functional/adapter/utils/test_utils.py::TestDate::test_build_assert_equal",
    "tests/functional/adapter/utils/test_utils.py::TestDateAdd::test_build_assert_equal",
    "tests/functional/adapter/utils/test_utils.py::TestDateDiff::test_build_assert_equal",
    "tests/functional/adapter/utils/test_utils.py::TestDateSpine::test_build_assert_equal",
    "tests/functional/adapter/utils/test_utils.py::TestDateTrunc::test_build_assert_equal",
    "tests/functional/adapter/utils/test_utils.py::TestEscapeSingleQuotes::test_build_assert_equal",
    "tests/functional/adapter/utils/test_utils.py::TestExcept::test_build_assert_equal",
    "tests/functional/adapter/utils/test_utils.py::TestGenerateSeries::test_build_assert_equal",
    "tests/functional/adapter/utils/test_utils.py::TestGetIntervalsBeteween::test_build_assert_equal",
    "tests/functional/adapter/utils/test_utils.py::TestGetPowersOfTwo::test_build_assert_equal",
    "tests/functional/adapter/utils/test_utils.py::TestHash::test_build_assert_equal",
    "tests/functional/adapter/utils/test_utils.py::TestIntersect::test_build_assert_equal",
    "tests/functional/adapter/utils/test_utils.py::TestLastDay::test_build_assert_equal",
    "tests/functional/adapter/utils/test_utils.py::TestLength::test_build_assert_equal",
    "tests/functional/adapter/utils/test_utils.py::TestListagg::test_build_assert_equal",
    "tests/functional/adapter/utils/test_utils.py::TestPosition::test_build_assert_equal",
    "tests/functional/adapter/utils/test_utils.py::TestReplace::test_build_assert_equal",
    "tests/functional/adapter/utils/test_utils.py::TestRight::test_build_assert_equal",
    "tests/functional/adapter/utils/test_utils.py::TestSafeCast::test_build_assert_equal",
    "tests/functional/adapter/utils/test_utils.py::TestSplitPart::test_build_assert_equal",
    "tests/functional/adapter/utils/test_utils.py::TestStringLiteral::test_build_assert_equal",
    "tests/functional/test_auth_method.py::TestDatabaseMethod::test_connection",
    "tests/functional/test_autocommit.py::TestAfterCommitMacroTakesEffect::test_update_happens_via_macro_in_config",
    "tests/functional/test_autocommit.py::TestAutocommitUnblocksDDLInTransactions::test_default_setting_allows_DDL",
    "tests/functional/test_autocommit.py::TestTransactionBlocksPreventCertainCommands::test_autocommit_deactivated_prevents_DDL",
    "tests/functional/test_autocommit.py::TestUpdateDDLCommits::test_update_will_go_through",
    "tests/functional/test_autocommit.py::TestUpdateDDLDoesNotCommitWithoutAutocommit::test_update_will_not_go_through",
    "tests/functional/test_columns_in_relation.py::TestColumnsInRelationBehaviorFlagOff::test_columns_in_relation",
]


def test_dbt_redshift_functional_suite(tmp_path):
    try:
        import dbt.adapters.redshift  # noqa: F401
        import dbt.tests.fixtures.project  # noqa: F401
    except ImportError:
        if CI:
            raise
        pytest.skip("dbt-redshift or dbt-tests-adapter is not installed (scripts/setup-system.sh installs them)")
    outcomes, output = dbt_redshift.run_suite(tmp_path)
    tail = output[-20000:]
    unnamed = sorted(set(outcomes) - set(EXPECTED_PASS) - set(KNOWN_FAILURES) - set(UPSTREAM_SKIPS))
    assert not unnamed, f"tests the lists do not name: {unnamed}\n{tail}"
    missing = sorted((set(EXPECTED_PASS) | set(KNOWN_FAILURES) | set(UPSTREAM_SKIPS)) - set(outcomes))
    assert not missing, f"tests that did not run: {missing}\n{tail}"
    failed = sorted(t for t in EXPECTED_PASS if outcomes[t] != "passed")
    assert not failed, f"tests that should pass: {failed}\n{tail}"
    now_passing = sorted(t for t in KNOWN_FAILURES if outcomes[t] == "passed")
    assert not now_passing, f"known failures that pass now (move them to EXPECTED_PASS): {now_passing}"
    not_skipped = sorted(t for t in UPSTREAM_SKIPS if outcomes[t] != "skipped")
    assert not not_skipped, f"upstream skips that ran: {not_skipped}"
