select a from t limit 2 offset 9223372036854775807
