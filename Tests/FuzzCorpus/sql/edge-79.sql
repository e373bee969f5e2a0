SELECT is_valid_json('{'), json_parse('x'), json_extract_path_text('{"a":1}', '');
