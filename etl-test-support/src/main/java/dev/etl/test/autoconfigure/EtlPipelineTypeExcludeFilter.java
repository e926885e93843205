package dev.etl.test.autoconfigure;

import dev.etl.ops.ChainFactory;
import java.io.IOException;
import java.util.Set;
import org.springframework.boot.test.context.filter.annotation.StandardAnnotationCustomizableTypeExcludeFilter;
import org.springframework.context.annotation.Bean;
import org.springframework.core.type.MethodMetadata;
import org.springframework.core.type.classreading.MetadataReader;
import org.springframework.core.type.classreading.MetadataReaderFactory;
import org.springframework.util.ClassUtils;

/**
 * Component-scan filter of {@link EtlPipelineTest @EtlPipelineTest}: keeps {@link ChainFactory}
 * components and the classes that declare a {@code ChainFactory} {@code @Bean} method; excludes
 * everything else unless the annotation's include filters name it.
 */
final class EtlPipelineTypeExcludeFilter extends StandardAnnotationCustomizableTypeExcludeFilter<EtlPipelineTest> {

    EtlPipelineTypeExcludeFilter(Class<?> testClass) {
        super(testClass);
    }

    @Override
    protected Set<Class<?>> getKnownIncludes() {
        return Set.of(ChainFactory.class);
    }

    @Override
    protected boolean defaultInclude(MetadataReader metadataReader, MetadataReaderFactory metadataReaderFactory)
            throws IOException {
        return super.defaultInclude(metadataReader, metadataReaderFactory) || declaresChainFactory(metadataReader);
    }

    private boolean declaresChainFactory(MetadataReader metadataReader) {
        ClassLoader classLoader = getClass().getClassLoader();
        for (MethodMetadata method : metadataReader.getAnnotationMetadata().getAnnotatedMethods(Bean.class.getName())) {
            String returnType = method.getReturnTypeName();
            if (ClassUtils.isPresent(returnType, classLoader)
                    && ChainFactory.class.isAssignableFrom(ClassUtils.resolveClassName(returnType, classLoader))) {
                return true;
            }
        }
        return false;
    }
}
