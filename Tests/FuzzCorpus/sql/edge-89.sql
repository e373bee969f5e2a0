SET timezone TO 'Asia/Kathmandu'; SELECT getdate() > '2000-01-01', current_date, sysdate;
