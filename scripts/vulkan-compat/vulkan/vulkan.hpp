// zealot: Vulkan-Hpp compatibility shim for building llama.cpp's Vulkan
// backend against older system headers (Debian 12 ships 1.3.239).
//
// The pinned ggml-vulkan.cpp names three symbols of VK_EXT_layer_settings
// (vk::LayerSettingEXT, vk::LayerSettingTypeEXT, vk::LayerSettingsCreateInfoEXT)
// that Vulkan-Hpp gained in header version 1.3.272. This file is found first
// through -DVulkan_INCLUDE_DIR, includes the system header, and supplies
// those three names only when the system header lacks them. The layout
// follows the extension's C definition (VkLayerSettingEXT,
// VkLayerSettingsCreateInfoEXT); the engine passes the create-info only as
// an opaque pNext link, so only its memory layout matters.
#pragma once
#include_next <vulkan/vulkan.hpp>

#if VK_HEADER_VERSION < 272
#include <cstdint>
namespace vk {
enum class LayerSettingTypeEXT : int32_t {
	eBool32 = 0,
	eInt32 = 1,
	eInt64 = 2,
	eUint32 = 3,
	eUint64 = 4,
	eFloat32 = 5,
	eFloat64 = 6,
	eString = 7,
};

struct LayerSettingEXT {
	const char *pLayerName;
	const char *pSettingName;
	LayerSettingTypeEXT type;
	uint32_t valueCount;
	const void *pValues;
};

struct LayerSettingsCreateInfoEXT {
	// VK_STRUCTURE_TYPE_LAYER_SETTINGS_CREATE_INFO_EXT (extension 497)
	VkStructureType sType = static_cast<VkStructureType>(1000496000);
	const void *pNext = nullptr;
	uint32_t settingCount = 0;
	const LayerSettingEXT *pSettings = nullptr;

	LayerSettingsCreateInfoEXT(ArrayProxyNoTemporaries<const LayerSettingEXT> const &settings,
				   const void *next = nullptr)
	    : pNext(next), settingCount(settings.size()), pSettings(settings.data())
	{
	}
};
} // namespace vk
#endif
