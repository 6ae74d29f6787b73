package dev.rota;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.lang.module.ModuleDescriptor;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** The jar is the named module {@code dev.rota} and exports its public API package only. */
class ModuleDescriptorTest {

    @Test
    void exportsOnlyThePublicApi() throws Exception {
        Path classes = Path.of(RotaPool.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        Path moduleInfo = classes.resolve("module-info.class");
        assertTrue(Files.exists(moduleInfo), "no module-info.class in " + classes);
        ModuleDescriptor descriptor;
        try (InputStream in = Files.newInputStream(moduleInfo)) {
            descriptor = ModuleDescriptor.read(in);
        }
        assertEquals("dev.rota", descriptor.name());
        Set<String> exported = descriptor.exports().stream()
                .filter(e -> !e.isQualified())
                .map(ModuleDescriptor.Exports::source)
                .collect(Collectors.toSet());
        assertEquals(Set.of("dev.rota"), exported);
        assertTrue(descriptor.opens().isEmpty(), "opens nothing");
    }
}
