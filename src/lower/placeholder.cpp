// placeholder until the stage has sources
