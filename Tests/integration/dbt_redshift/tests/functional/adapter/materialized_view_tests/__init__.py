# provides namespacing for test discovery
