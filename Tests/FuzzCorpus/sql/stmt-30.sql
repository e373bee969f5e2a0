SHOW datestyle;
