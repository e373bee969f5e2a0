# SPDX-License-Identifier: Apache-2.0
"""dbt-utils' and dbt-audit-helper's integration_tests projects against `slicehouse serve`
(issue 76: they should pass in full).

Each project runs against its own fresh server, as dbt_packages/run.py runs it: the
vendored package copied to a scratch folder, a Redshift profile (target `redshift`),
`dbt deps`, `dbt debug`, `dbt seed --full-refresh`, `dbt run` and `dbt test` with the
`--exclude` upstream's CI gives for Redshift. Every seed, model, data test and unit test
is one node.

The ratchet: every node in EXPECTED_PASS passes, at least MIN_PASSING of each project's
nodes pass, and every node is named in EXPECTED_PASS or KNOWN_FAILURES (so a node that
appears or goes away is noticed). A known failure is a strict expected failure: when it
starts to pass, move it to EXPECTED_PASS and raise MIN_PASSING. dbt_packages/TRIAGE.md
says why each known failure fails.

Both projects take about two minutes on two cores. Skipped when dbt is not installed,
unless CI=true, where that is a failure.
"""
import importlib.util
import os
import shutil

import pytest

from server_support import CI

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location("dbt_packages_run", os.path.join(HERE, "dbt_packages", "run.py"))
dbt_packages = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(dbt_packages)

PROJECTS = ["dbt-utils", "audit-helper"]
TOTAL_NODES = {"dbt-utils": 237, "audit-helper": 95}
MIN_PASSING = {"dbt-utils": 237, "audit-helper": 95}  # raise as nodes start to pass

# node -> why it fails (dbt_packages/TRIAGE.md)
KNOWN_FAILURES = {
    "dbt-utils": {},
    "audit-helper": {},
}

# Every node that passes today (seeds, then models, data tests, unit tests), as run.py names them.
EXPECTED_PASS = {
    "dbt-utils": [
        "seed.data_cardinality_equality_a",
        "seed.data_cardinality_equality_b",
        "seed.data_date_spine",
        "seed.data_deduplicate",
        "seed.data_deduplicate_expected",
        "seed.data_events_20180101",
        "seed.data_events_20180102",
        "seed.data_events_20180103",
        "seed.data_filtered_columns_in_relation",
        "seed.data_filtered_columns_in_relation_expected",
        "seed.data_generate_series",
        "seed.data_generate_surrogate_key",
        "seed.data_get_column_values",
        "seed.data_get_column_values_dropped",
        "seed.data_get_column_values_where",
        "seed.data_get_column_values_where_expected",
        "seed.data_get_query_results_as_dict",
        "seed.data_get_single_value",
        "seed.data_haversine_km",
        "seed.data_haversine_mi",
        "seed.data_not_null_proportion",
        "seed.data_nullcheck_table",
        "seed.data_people",
        "seed.data_pivot",
        "seed.data_pivot_expected",
        "seed.data_pivot_expected_apostrophe",
        "seed.data_safe_add",
        "seed.data_safe_divide",
        "seed.data_safe_divide_denominator_expressions",
        "seed.data_safe_divide_numerator_expressions",
        "seed.data_safe_subtract",
        "seed.data_star",
        "seed.data_star_aggregate",
        "seed.data_star_aggregate_expected",
        "seed.data_star_expected",
        "seed.data_star_prefix_suffix_expected",
        "seed.data_star_quote_identifiers",
        "seed.data_test_accepted_range",
        "seed.data_test_at_least_one",
        "seed.data_test_equal_rowcount",
        "seed.data_test_equality_a",
        "seed.data_test_equality_b",
        "seed.data_test_equality_floats_a",
        "seed.data_test_equality_floats_b",
        "seed.data_test_equality_floats_columns_a",
        "seed.data_test_equality_floats_columns_b",
        "seed.data_test_expression_is_true",
        "seed.data_test_fewer_rows_than_table_1",
        "seed.data_test_fewer_rows_than_table_2",
        "seed.data_test_mutually_exclusive_ranges_no_gaps",
        "seed.data_test_mutually_exclusive_ranges_with_gaps",
        "seed.data_test_mutually_exclusive_ranges_with_gaps_zero_length",
        "seed.data_test_not_accepted_values",
        "seed.data_test_not_constant",
        "seed.data_test_relationships_where_table_1",
        "seed.data_test_relationships_where_table_2",
        "seed.data_test_sequential_timestamps",
        "seed.data_test_sequential_values",
        "seed.data_union_events_expected",
        "seed.data_union_exclude_expected",
        "seed.data_union_expected",
        "seed.data_union_table_1",
        "seed.data_union_table_2",
        "seed.data_unique_combination_of_columns",
        "seed.data_unpivot",
        "seed.data_unpivot_bool",
        "seed.data_unpivot_bool_expected",
        "seed.data_unpivot_expected",
        "seed.data_unpivot_original_api_expected",
        "seed.data_unpivot_quote",
        "seed.data_unpivot_quote_expected",
        "seed.data_url_host",
        "seed.data_url_path",
        "seed.data_urls",
        "seed.data_width_bucket",
        "model.equality_less_columns",
        "model.recency_time_excluded",
        "model.recency_time_included",
        "model.test_date_spine",
        "model.test_deduplicate",
        "model.test_groupby",
        "model.test_equal_rowcount",
        "model.test_fewer_rows_than",
        "model.test_generate_series",
        "model.test_generate_surrogate_key",
        "model.test_get_column_values",
        "model.test_get_column_values_where",
        "model.test_get_filtered_columns_in_relation",
        "model.test_get_relations_by_pattern",
        "model.test_get_relations_by_prefix_and_union",
        "model.test_get_single_value",
        "model.test_get_single_value_default",
        "model.test_haversine_distance_km",
        "model.test_haversine_distance_mi",
        "model.test_not_empty_string_failing",
        "model.test_not_empty_string_passing",
        "model.test_nullcheck_table",
        "model.test_pivot",
        "model.test_pivot_apostrophe",
        "model.test_safe_add",
        "model.test_safe_divide",
        "model.test_safe_subtract",
        "model.test_star",
        "model.test_star_aggregate",
        "model.test_star_no_columns",
        "model.test_star_prefix_suffix",
        "model.test_star_quote_identifiers",
        "model.test_star_unquote_aliases",
        "model.test_star_uppercase",
        "model.test_union",
        "model.test_union_base",
        "model.test_union_exclude_base_lowercase",
        "model.test_union_exclude_base_uppercase",
        "model.test_union_exclude_lowercase",
        "model.test_union_exclude_uppercase",
        "model.test_union_no_source_column",
        "model.test_union_where",
        "model.test_union_where_base",
        "model.test_unpivot",
        "model.test_unpivot_bool",
        "model.test_unpivot_quote",
        "model.test_url_host",
        "model.test_url_path",
        "model.test_urls",
        "model.test_width_bucket",
        "test.accepted_values_test_get_column_values_count_a__1",
        "test.accepted_values_test_get_column_values_count_b__1",
        "test.accepted_values_test_get_column_values_count_c__1",
        "test.accepted_values_test_get_column_values_count_d__1",
        "test.accepted_values_test_get_column_values_count_e__1",
        "test.accepted_values_test_get_column_values_count_f__1",
        "test.accepted_values_test_get_column_values_count_g__5",
        "test.assert_equal_test_generate_surrogate_key_actual_all_columns_list__expected_all_columns",
        "test.assert_equal_test_generate_surrogate_key_actual_column_1_only__expected_column_1_only",
        "test.assert_equal_test_get_single_value_date_actual__date_expected",
        "test.assert_equal_test_get_single_value_default_date_actual__date_expected",
        "test.assert_equal_test_get_single_value_default_float_actual__float_expected",
        "test.assert_equal_test_get_single_value_default_int_actual__int_expected",
        "test.assert_equal_test_get_single_value_default_string_actual__string_expected",
        "test.assert_equal_test_get_single_value_float_actual__float_expected",
        "test.assert_equal_test_get_single_value_int_actual__int_expected",
        "test.assert_equal_test_get_single_value_string_actual__string_expected",
        "test.assert_equal_test_haversine_distance_km_actual__expected",
        "test.assert_equal_test_haversine_distance_mi_actual__expected",
        "test.assert_equal_test_safe_add_actual__expected",
        "test.assert_equal_test_safe_divide_actual__expected",
        "test.assert_equal_test_safe_subtract_actual__expected",
        "test.assert_equal_test_star_quote_identifiers_actual__expected",
        "test.assert_equal_test_star_unquote_aliases_actual__expected",
        "test.assert_equal_test_url_host_actual__expected",
        "test.assert_equal_test_url_path_actual__expected",
        "test.assert_equal_test_urls_actual__expected",
        "test.assert_equal_test_width_bucket_actual__expected",
        "test.assert_get_query_results_as_dict_objects_equal",
        "test.assert_pretty_output_msg_is_string",
        "test.assert_pretty_time_is_string",
        "test.dbt_utils_accepted_range_data_test_accepted_range_id__False__11_1___2",
        "test.dbt_utils_accepted_range_data_test_accepted_range_id__True__0",
        "test.dbt_utils_accepted_range_data_test_accepted_range_id__True__11___1",
        "test.dbt_utils_at_least_one_data_test_at_least_one_field",
        "test.dbt_utils_at_least_one_data_test_at_least_one_value__field",
        "test.dbt_utils_at_least_one_test_get_relations_by_prefix_and_union_user_id",
        "test.dbt_utils_cardinality_equality_data_cardinality_equality_a_same_name__different_name__ref_data_cardinality_equality_b_",
        "test.dbt_utils_cardinality_equality_data_cardinality_equality_a_same_name__same_name__ref_data_cardinality_equality_b_",
        "test.dbt_utils_cardinality_equality_data_people_is_active__is_active__ref_data_people_",
        "test.dbt_utils_equal_rowcount_test_equal_rowcount_ref_test_equal_rowcount_",
        "test.dbt_utils_equal_rowcount_test_equal_rowcount_ref_test_equal_rowcount___field",
        "test.dbt_utils_equality_data_test_equality_a_col_a__col_b__ref_data_test_equality_b_",
        "test.dbt_utils_equality_data_test_equality_a_ref_data_test_equality_a_",
        "test.dbt_utils_equality_data_test_equality_a_ref_data_test_equality_b_",
        "test.dbt_utils_equality_data_test_equality_a_ref_data_test_equality_b___col_c",
        "test.dbt_utils_equality_data_test_equality_floats_a_ref_data_test_equality_floats_b___4",
        "test.dbt_utils_equality_data_test_equality_floats_a_ref_data_test_equality_floats_b___8",
        "test.dbt_utils_equality_data_test_equality_floats_columns_a_id__float_number__ref_data_test_equality_floats_columns_b___4",
        "test.dbt_utils_equality_data_test_equality_floats_columns_a_ref_data_test_equality_floats_columns_b___4",
        "test.dbt_utils_equality_data_test_equality_floats_columns_a_ref_data_test_equality_floats_columns_b___to_ignore__4",
        "test.dbt_utils_equality_equality_less_columns_ref_data_test_equality_a___col_c",
        "test.dbt_utils_equality_test_date_spine_ref_data_date_spine_",
        "test.dbt_utils_equality_test_deduplicate_ref_data_deduplicate_expected_",
        "test.dbt_utils_equality_test_equal_column_subset_first_name__last_name__email__ref_data_people_",
        "test.dbt_utils_equality_test_generate_series_ref_data_generate_series_",
        "test.dbt_utils_equality_test_get_column_values_where_ref_data_get_column_values_where_expected_",
        "test.dbt_utils_equality_test_get_filtered_columns_in_relation_ref_data_filtered_columns_in_relation_expected_",
        "test.dbt_utils_equality_test_get_relations_by_pattern_ref_data_union_events_expected_",
        "test.dbt_utils_equality_test_pivot_apostrophe_ref_data_pivot_expected_apostrophe_",
        "test.dbt_utils_equality_test_pivot_ref_data_pivot_expected_",
        "test.dbt_utils_equality_test_star_aggregate_ref_data_star_aggregate_expected_",
        "test.dbt_utils_equality_test_star_prefix_suffix_ref_data_star_prefix_suffix_expected_",
        "test.dbt_utils_equality_test_star_ref_data_star_expected_",
        "test.dbt_utils_equality_test_star_uppercase_ref_data_star_expected_",
        "test.dbt_utils_equality_test_union_exclude_lowercase_ref_data_union_exclude_expected_",
        "test.dbt_utils_equality_test_union_exclude_uppercase_ref_data_union_exclude_expected_",
        "test.dbt_utils_equality_test_union_ref_data_union_expected_",
        "test.dbt_utils_equality_test_unpivot_bool_ref_data_unpivot_bool_expected_",
        "test.dbt_utils_equality_test_unpivot_quote_ref_data_unpivot_quote_expected_",
        "test.dbt_utils_equality_test_unpivot_ref_data_unpivot_expected_",
        "test.dbt_utils_expression_is_true_data_test_expression_is_true_col_a_0_5",
        "test.dbt_utils_expression_is_true_data_test_expression_is_true_col_a___col_b_1",
        "test.dbt_utils_expression_is_true_data_test_expression_is_true_col_a_col_b_1",
        "test.dbt_utils_expression_is_true_data_test_expression_is_true_col_b___0_5",
        "test.dbt_utils_expression_is_true_test_union_where_id___1",
        "test.dbt_utils_fewer_rows_than_test_fewer_rows_than_ref_data_test_fewer_rows_than_table_2_",
        "test.dbt_utils_fewer_rows_than_test_fewer_rows_than_ref_data_test_fewer_rows_than_table_2___col_a",
        "test.dbt_utils_mutually_exclusive_ranges_data_test_mutually_exclusive_ranges_no_gaps_not_allowed__lower_bound__upper_bound",
        "test.dbt_utils_mutually_exclusive_ranges_data_test_mutually_exclusive_ranges_with_gaps_allowed__valid_from__subscription_id__coalesce_valid_to_2099_01_01_",
        "test.dbt_utils_mutually_exclusive_ranges_data_test_mutually_exclusive_ranges_with_gaps_required__valid_from__subscription_id__coalesce_valid_to_2099_01_01_",
        "test.dbt_utils_mutually_exclusive_ranges_data_test_mutually_exclusive_ranges_with_gaps_zero_length_valid_from__subscription_id__valid_to__True",
        "test.dbt_utils_not_accepted_values_data_test_not_accepted_values_city__Madrid__Berlin",
        "test.dbt_utils_not_constant_data_test_not_constant_field",
        "test.dbt_utils_not_constant_data_test_not_constant_field__col_a",
        "test.dbt_utils_not_constant_test_union_where_favorite_number",
        "test.dbt_utils_not_empty_string_test_not_empty_string_failing_string_trim_whitespace_true",
        "test.dbt_utils_not_empty_string_test_not_empty_string_passing_string_trim_whitespace_false__False",
        "test.dbt_utils_not_empty_string_test_not_empty_string_passing_string_trim_whitespace_true",
        "test.dbt_utils_not_null_proportion_data_not_null_proportion_0_5__0_5__point_5",
        "test.dbt_utils_not_null_proportion_data_not_null_proportion_0_9__point_9",
        "test.dbt_utils_not_null_proportion_data_not_null_proportion_0__point_5__point_9",
        "test.dbt_utils_recency_recency_time_excluded_day__created_at__False__1",
        "test.dbt_utils_recency_recency_time_excluded_day__created_at__True__1",
        "test.dbt_utils_recency_recency_time_included_day__created_at__1",
        "test.dbt_utils_recency_recency_time_included_day__created_at__col1__1",
        "test.dbt_utils_recency_recency_time_included_day__created_at__col1__col2__1",
        "test.dbt_utils_relationships_where_data_test_relationships_where_table_2_id__id__id_4__ref_data_test_relationships_where_table_1_",
        "test.dbt_utils_sequential_values_data_test_sequential_timestamps_my_timestamp__hour__1",
        "test.dbt_utils_sequential_values_data_test_sequential_values_my_even_sequence__2",
        "test.dbt_utils_sequential_values_data_test_sequential_values_my_even_sequence__col_a__2",
        "test.dbt_utils_unique_combination_of_columns_data_unique_combination_of_columns_month__product",
        "test.expect_table_columns_to_match_set_test_union_no_source_column_id__name__favorite_color__favorite_number",
        "test.not_empty_string_test_nullcheck_table_field_1",
        "test.not_empty_string_test_nullcheck_table_field_2",
        "test.not_empty_string_test_nullcheck_table_field_3",
        "test.not_null_test_get_relations_by_prefix_and_union_event",
        "test.not_null_test_get_relations_by_prefix_and_union_user_id",
        "test.not_null_test_star_no_columns_canary_column",
        "test.test_get_single_value_multiple_rows",
        "test.test_slugify",
        "test.unique_test_get_relations_by_prefix_and_union_user_id",
    ],
    "audit-helper": [
        "seed.data_compare_all_columns__albertsons_produce",
        "seed.data_compare_all_columns__albertsons_produce__concat_pk",
        "seed.data_compare_all_columns__market_of_choice_produce",
        "seed.data_compare_all_columns__market_of_choice_produce__concat_pk",
        "seed.data_compare_relation_columns_a",
        "seed.data_compare_relation_columns_b",
        "seed.data_compare_relations__a_relation",
        "seed.data_compare_relations__b_relation",
        "seed.data_compare_which_columns_differ_a",
        "seed.data_compare_which_columns_differ_b",
        "seed.expected_results__compare_all_columns_concat_pk_with_summary",
        "seed.expected_results__compare_all_columns_concat_pk_without_summary",
        "seed.expected_results__compare_all_columns_where_clause",
        "seed.expected_results__compare_all_columns_with_summary",
        "seed.expected_results__compare_all_columns_with_summary_and_exclude",
        "seed.expected_results__compare_all_columns_without_summary",
        "seed.expected_results__compare_relation_columns",
        "seed.expected_results__compare_relations_with_exclude",
        "seed.expected_results__compare_relations_without_exclude",
        "seed.expected_results__compare_row_counts",
        "seed.expected_results__compare_which_columns_differ",
        "seed.expected_results__compare_which_columns_differ_exclude_cols",
        "seed.expected_results__compare_with_summary",
        "seed.expected_results__compare_without_summary",
        "model.compare_all_columns_concat_pk_with_summary",
        "model.compare_all_columns_concat_pk_without_summary",
        "model.compare_all_columns_where_clause",
        "model.compare_all_columns_with_summary",
        "model.compare_all_columns_with_summary_and_exclude",
        "model.compare_all_columns_without_summary",
        "model.compare_and_classify_query_results",
        "model.compare_queries",
        "model.compare_queries_concat_pk_without_summary",
        "model.compare_queries_with_summary",
        "model.compare_queries_without_summary",
        "model.compare_relation_columns",
        "model.compare_relations_concat_pk_without_summary",
        "model.compare_relations_with_exclude",
        "model.compare_relations_with_summary",
        "model.compare_relations_without_exclude",
        "model.compare_relations_without_summary",
        "model.compare_row_counts",
        "model.compare_which_columns_differ",
        "model.compare_which_columns_differ_exclude_cols",
        "model.unit_compare_classify",
        "model.unit_compare_classify_struct",
        "model.unit_compare_queries",
        "model.unit_compare_which_query_columns_differ",
        "model.unit_ensure_all_pks_are_in_column_set",
        "model.unit_test_model_a",
        "model.unit_test_model_b",
        "model.unit_test_struct_model_a",
        "model.unit_test_struct_model_b",
        "test.dbt_utils_equality_compare_all_columns_concat_pk_with_summary_ref_expected_results__compare_all_columns_concat_pk_with_summary_",
        "test.dbt_utils_equality_compare_all_columns_concat_pk_without_summary_ref_expected_results__compare_all_columns_concat_pk_without_summary_",
        "test.dbt_utils_equality_compare_all_columns_where_clause_ref_expected_results__compare_all_columns_where_clause_",
        "test.dbt_utils_equality_compare_all_columns_with_summary_and_exclude_ref_expected_results__compare_all_columns_with_summary_and_exclude_",
        "test.dbt_utils_equality_compare_all_columns_with_summary_ref_expected_results__compare_all_columns_with_summary_",
        "test.dbt_utils_equality_compare_all_columns_without_summary_ref_expected_results__compare_all_columns_without_summary_",
        "test.dbt_utils_equality_compare_queries_concat_pk_without_summary_ref_expected_results__compare_without_summary_",
        "test.dbt_utils_equality_compare_queries_ref_expected_results__compare_relations_without_exclude_",
        "test.dbt_utils_equality_compare_queries_with_summary_ref_expected_results__compare_with_summary_",
        "test.dbt_utils_equality_compare_queries_without_summary_ref_expected_results__compare_without_summary_",
        "test.dbt_utils_equality_compare_relation_columns_ref_expected_results__compare_relation_columns_",
        "test.dbt_utils_equality_compare_relations_concat_pk_without_summary_ref_expected_results__compare_without_summary_",
        "test.dbt_utils_equality_compare_relations_with_exclude_ref_expected_results__compare_relations_with_exclude_",
        "test.dbt_utils_equality_compare_relations_with_summary_ref_expected_results__compare_with_summary_",
        "test.dbt_utils_equality_compare_relations_without_exclude_ref_expected_results__compare_relations_without_exclude_",
        "test.dbt_utils_equality_compare_relations_without_summary_ref_expected_results__compare_without_summary_",
        "test.dbt_utils_equality_compare_row_counts_ref_expected_results__compare_row_counts_",
        "test.dbt_utils_equality_compare_which_columns_differ_exclude_cols_ref_expected_results__compare_which_columns_differ_exclude_cols_",
        "test.dbt_utils_equality_compare_which_columns_differ_ref_expected_results__compare_which_columns_differ_",
        "unit_test.unit_compare_classify.compare_classify_identical_tables",
        "unit_test.unit_compare_classify.compare_classify_identical_tables_event_time_filter",
        "unit_test.unit_compare_classify.compare_classify_identical_tables_multiple_pk_cols",
        "unit_test.unit_compare_classify.compare_classify_identical_tables_without_pk_in_cols_list",
        "unit_test.unit_compare_classify_struct.compare_classify_complex_struct",
        "unit_test.unit_compare_classify_struct.compare_classify_complex_struct_different_values",
        "unit_test.unit_compare_classify_struct.compare_classify_simple_struct",
        "unit_test.unit_compare_classify_struct.unit_compare_classify_complex_struct_identical_values_different_order",
        "unit_test.unit_compare_classify_struct.unit_compare_classify_struct_identical_values_different_order",
        "unit_test.unit_compare_classify_struct.unit_compare_classify_struct_removed_key",
        "unit_test.unit_compare_queries.identical_records_compare_queries",
        "unit_test.unit_compare_queries.identical_records_compare_queries_no_summarize",
        "unit_test.unit_compare_which_query_columns_differ.compare_cols_identical_tables",
        "unit_test.unit_compare_which_query_columns_differ.compare_cols_identical_tables_event_time_filter",
        "unit_test.unit_ensure_all_pks_are_in_column_set.ensure_all_pks_in_columns",
        "unit_test.unit_ensure_all_pks_are_in_column_set.ensure_all_pks_in_columns_caps_col",
        "unit_test.unit_ensure_all_pks_are_in_column_set.ensure_all_pks_in_columns_caps_pk",
        "unit_test.unit_ensure_all_pks_are_in_column_set.ensure_all_pks_in_columns_caps_pk_in_both",
        "unit_test.unit_ensure_all_pks_are_in_column_set.ensure_all_pks_in_columns_empty_sets",
        "unit_test.unit_ensure_all_pks_are_in_column_set.ensure_all_pks_in_columns_no_cols",
        "unit_test.unit_ensure_all_pks_are_in_column_set.ensure_all_pks_in_columns_no_pks",
        "unit_test.unit_ensure_all_pks_are_in_column_set.ensure_all_pks_in_columns_one_missing_pk",
        "unit_test.unit_ensure_all_pks_are_in_column_set.ensure_all_pks_in_columns_pks_at_end",
    ],
}


def dbt_binary():
    path = shutil.which("dbt")
    if path is None:
        if CI:
            raise AssertionError("dbt is not installed (scripts/setup-system.sh installs dbt-core 1.10 and dbt-redshift 1.9)")
        pytest.skip("dbt is not installed (scripts/setup-system.sh installs dbt-core 1.10 and dbt-redshift 1.9)")
    return path


@pytest.fixture(scope="module")
def project_run(tmp_path_factory):
    """project name -> its ProjectRun; each project runs once, when a test first asks."""
    runs, errors = {}, {}

    def get(name):
        dbt = dbt_binary()
        if name in errors:  # a project that could not run is tried once, not once a test
            pytest.fail(errors[name])
        if name not in runs:
            try:
                runs[name] = dbt_packages.run_project(name, workdir=str(tmp_path_factory.mktemp(name)), dbt=dbt)
            except Exception as exc:  # noqa: BLE001
                errors[name] = f"{name} could not run: {type(exc).__name__}: {exc}"
                raise
        return runs[name]
    return get


def summary(run):
    lines = []
    dbt_packages.report(run, out=lines.append)
    return "\n".join(lines)


def test_the_lists_name_distinct_nodes():
    for name in PROJECTS:
        expected, known = EXPECTED_PASS[name], set(KNOWN_FAILURES[name])
        assert len(set(expected)) == len(expected), name
        assert not set(expected) & known, name
        assert len(expected) + len(known) == TOTAL_NODES[name], name
        assert MIN_PASSING[name] <= TOTAL_NODES[name]


@pytest.mark.parametrize("name", PROJECTS)
def test_dbt_runs_every_step(project_run, name):
    run = project_run(name)
    for step in run.steps:
        if step.argv[0] in ("deps", "debug"):
            assert step.returncode == 0, f"dbt {' '.join(step.argv)} failed:\n{step.output[-4000:]}"
    assert not run.step_failures(), summary(run)
    assert run.server_alive, summary(run)


@pytest.mark.parametrize("name", PROJECTS)
def test_every_node_is_listed(project_run, name):
    run = project_run(name)
    listed = set(EXPECTED_PASS[name]) | set(KNOWN_FAILURES[name])
    assert set(run.nodes) == listed, (f"not listed: {sorted(set(run.nodes) - listed)}\n"
                                      f"listed but not run: {sorted(listed - set(run.nodes))}")


@pytest.mark.parametrize("name", PROJECTS)
def test_at_least_min_passing_nodes_pass(project_run, name):
    run = project_run(name)
    assert len(run.passed()) >= MIN_PASSING[name], summary(run)


def _node_params():
    for name in PROJECTS:
        for key in EXPECTED_PASS[name]:
            yield pytest.param(name, key, id=f"{name}:{key}")


@pytest.mark.parametrize("name,key", list(_node_params()))
def test_node_passes(project_run, name, key):
    node = project_run(name).nodes.get(key)
    assert node is not None, f"{key} did not run"
    assert node.ok, f"{key}: {node.status}: {node.message}\n(compiled: {node.compiled})"


def _known_params():
    for name in PROJECTS:
        for key, reason in KNOWN_FAILURES[name].items():
            yield pytest.param(name, key, id=f"{name}:{key}", marks=pytest.mark.xfail(strict=True, reason=reason))


@pytest.mark.parametrize("name,key", list(_known_params()))
def test_known_failure(project_run, name, key):
    """Fails while the cause is there; passes (an XPASS, which fails) once it is fixed."""
    node = project_run(name).nodes.get(key)
    assert node is not None and node.ok, f"{key}: {node.status if node else 'did not run'}"
