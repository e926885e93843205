package dev.etl.docs;

import dev.etl.source.Source;
import dev.etl.test.source.SourceLaneContract;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.io.TempDir;

// The example of docs/extending/custom-source.md passes the source kit.
// tag::kit[]
class LinesSourceTest extends SourceLaneContract {
    @TempDir
    Path dir;

    @Override
    protected Source createSource() throws IOException {
        List<Path> files = new ArrayList<>();
        for (int f = 0; f < 3; f++) {
            List<String> lines = new ArrayList<>();
            for (int i = 0; i < 2_000; i++) {
                lines.add("line " + i + " of file " + f);
            }
            files.add(Files.write(dir.resolve("file-" + f + ".txt"), lines));
        }
        return new LinesSource(files, 1, dir.resolve("offsets.properties"));
    }
}
// end::kit[]
