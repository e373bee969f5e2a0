SELECT convert_timezone('UTC', 'America/New_York', g), convert_timezone('Nowhere/Zone', g) FROM t;
