print("slicehouse")
